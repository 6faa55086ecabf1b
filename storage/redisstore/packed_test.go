package redisstore

import "testing"

func TestFieldNames(t *testing.T) {
	for i, name := range fieldNames {
		if name == "" || fieldIndex(name) != i {
			t.Errorf("field %d %q: index %d", i, name, fieldIndex(name))
		}
	}
	if fieldIndex("nope") != -1 || fieldIndex("") != -1 {
		t.Error("unknown names have an index")
	}
}

// TestParsePacked reads what the scripts' packed() writes, and refuses
// what it cannot have written.
func TestParsePacked(t *testing.T) {
	var f fields
	if err := parsePacked("3:bal4:12505:other3:a:b2:to19:1|250|0|1|ABCDEFGHI", &f); err != nil {
		t.Fatal(err)
	}
	if !f.has[fBal] || f.v[fBal] != "1250" || f.v[fTO] != "1|250|0|1|ABCDEFGHI" || f.has[fKeys] {
		t.Fatalf("parsed %+v", f)
	}
	if err := parsePacked("", &f); err != nil {
		t.Fatalf("an empty hash: %v", err)
	}
	for _, bad := range []string{"3:bal", "3:ba", ":bal", "x:bal1:1", "-1:a", "3:bal9:12", "99999999999999999999:a", "0:"} {
		if err := parsePacked(bad, &fields{}); err == nil {
			t.Errorf("parsePacked(%q) accepted", bad)
		}
	}
}
