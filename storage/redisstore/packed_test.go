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
	if err := parsePacked("bal\n1250\nother\na:b\nto\n1|250|0|1|ABCDEFGHI\nlcl\n", &f); err != nil {
		t.Fatal(err)
	}
	if !f.has[fBal] || f.v[fBal] != "1250" || f.v[fTO] != "1|250|0|1|ABCDEFGHI" || f.has[fKeys] || !f.has[fLCL] || f.v[fLCL] != "" {
		t.Fatalf("parsed %+v", f)
	}
	if err := parsePacked("", &f); err != nil {
		t.Fatalf("an empty hash: %v", err)
	}
	for _, bad := range []string{
		"bal",                // no value
		"bal\n1\nkeys",       // the last has none
		"bal\n1\n2\nkeys\n0", // a value with a newline: "2" read as a name
		"\n1",                // an empty name
		"Bal\n1", "b-l\n1",   // not a name of the store's
		"abcdefghijklmnopq\n1", // too long
	} {
		if err := parsePacked(bad, &fields{}); err == nil {
			t.Errorf("parsePacked(%q) accepted", bad)
		}
	}
}
