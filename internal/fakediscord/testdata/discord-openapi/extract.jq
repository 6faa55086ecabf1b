.components.schemas as $s
| def refs: [.. | objects | .["$ref"]? // empty | select(startswith("#/components/schemas/")) | ltrimstr("#/components/schemas/")];
  def close($names): ($names + ([$names[] as $n | $s[$n] | refs] | add) | unique) as $next
    | if $next == $names then $names else close($next) end;
{openapi, info: {title: .info.title, version: .info.version, license: .info.license},
 components: {schemas: (close($roots | unique) | map({key: ., value: $s[.]}) | from_entries)}}
