# C prototypes of kernel functions from bpftool's raw BTF dump:
#   jq -r --arg names "f g" -f proto.jq  (input: bpftool -j btf dump ... format raw)
# Knows the types the checked prototypes use: ints, typedefs, structs,
# unions, enums, const, pointers and pointers to functions.
.types as $t
| def ty($id): if $id == 0 then "void" else $t[$id - 1] end;
  def spell($id):
    ty($id) as $x
    | if $x == "void" then "void"
      elif $x.kind == "INT" or $x.kind == "TYPEDEF" then $x.name
      elif $x.kind == "STRUCT" then "struct \($x.name)"
      elif $x.kind == "UNION" then "union \($x.name)"
      elif $x.kind == "ENUM" or $x.kind == "ENUM64" then "enum \($x.name)"
      elif $x.kind == "CONST" then "const \(spell($x.type_id))"
      elif $x.kind == "VOLATILE" then "volatile \(spell($x.type_id))"
      elif $x.kind == "PTR" then spell($x.type_id) + (if (spell($x.type_id) | endswith("*")) then "*" else " *" end)
      else "?\($x.kind)" end;
  def decl($id; $name):
    ty($id) as $x
    | if $x != "void" and $x.kind == "PTR" and (ty($x.type_id) | type) == "object"
         and ty($x.type_id).kind == "FUNC_PROTO" then
        ty($x.type_id) as $fp
        | "\(spell($fp.ret_type_id)) (*\($name))(\([$fp.params[] | spell(.type_id)] | join(", ")))"
      else spell($id) as $s | if ($s | endswith("*")) then "\($s)\($name)" else "\($s) \($name)" end end;
  def params($p): if ($p.params | length) == 0 then "void"
    else [$p.params[] | decl(.type_id; .name)] | join(", ") end;
  ($names | split(" ")) as $want
  | $t[] | select(.kind == "FUNC" and (.name as $n | $want | index($n)))
  | ty(.type_id) as $p
  | "\(decl($p.ret_type_id; .name))(\(params($p)));"
