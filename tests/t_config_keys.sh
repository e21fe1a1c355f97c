#!/bin/sh
# t_config_keys.sh: the configuration keys the manual documents against
# the keys hetui reads and writes (issue 21, "the config table covering
# every key that the man page documents (a test compares the two)").
#
# The manual's keys: every `.It Li KEY` of its CONFIGURATION section
# (up to "Keys not read"), a comma list sharing the first key's parent
# (`sharding.max_points_per_shard , min_points_per_shard`), prefixed by
# the sub-section's "Keys under .Li PREFIX"; the parameter fields (value,
# min, max, vary, prior, prior_params) as fields of every parameter.
# The written keys: every leaf key of `hetui config --template` for one
# mode of each family (two_component, laminar_flow).
# Checks:
#   - every documented key is read: a configuration with all of them set
#     to null (null keeps the default) is valid in the family that reads
#     it, and `config --check -v` reports none of them as not used
#     (keys of the other family's vocabulary are tried in both);
#   - every key the template writes is documented: an item of the
#     section, a synonym named after "also", or a dotted key the prose
#     names (parameter entries through their documented fields);
#   - the reverse gaps are listed by name when a check fails.
. "$top_srcdir/tests/tap.sh"

if [ -z "$PYTHON3" ] || ! "$PYTHON3" -c 'import json' 2>/dev/null; then
	skip_all "python3 not found"
fi
plan 6
cd "$TAP_TMP" || exit 1
"$HETUI" config --template two_component >het.yaml 2>/dev/null
ok $? "the heterodyne template"
"$HETUI" config --template laminar_flow >hom.yaml 2>/dev/null
ok $? "the homodyne template"

"$PYTHON3" - "$top_srcdir/man/hetui.1.in" het.yaml hom.yaml <<'PY'
import re, sys
man, tmpls = sys.argv[1], sys.argv[2:]

def synonyms(body, prefix):
    """Keys named after "also" / "Also read from" in an item's text."""
    out, on = set(), False
    for line in body.split("\n"):
        if re.search(r"(^|\W)(also|Also|Also read from)$", line):
            on = True
            continue
        if on and line.startswith(".Li "):
            for n in line[4:].split(","):
                n = n.strip(" .;")
                if re.match(r"^[A-Za-z_][A-Za-z0-9_.]*$", n):
                    out.update((n, prefix + n))
            continue
        if on and line in ("and", "or", "+"):
            continue
        on = False
    return out

def man_keys(path):
    s = open(path).read()
    sec = s[s.index(".Sh CONFIGURATION"):s.index(".Ss Keys not read")]
    keys, fields, syn = set(), set(), set()
    for ss in re.split(r"^\.Ss ", sec, flags=re.M)[1:]:
        title = ss.split("\n", 1)[0]
        m = re.search(r"^Keys under\n\.Li (\S+)", ss, re.M)
        prefix = m.group(1) + "." if m else ""
        items = re.split(r"^\.It ", ss, flags=re.M)
        for body in items[1:]:
            syn |= synonyms(body, prefix)
        # a dotted key named anywhere in the prose (parameter_space.bounds)
        for m in re.finditer(r"^\.Li ([A-Za-z_]+\.[A-Za-z0-9_.]+)", ss, re.M):
            syn.add(m.group(1).rstrip("."))
        for it in re.finditer(r"^\.It Li (.*)$", ss, re.M):
            names = [n.strip() for n in it.group(1).split(",")]
            if any(" " in n for n in names):
                continue
            first = names[0]
            parent = first.rsplit(".", 1)[0] + "." if "." in first else ""
            for k, n in enumerate(names):
                full = n if k == 0 else parent + n
                if title == "Parameters" and "." not in full:
                    fields.add(full)
                else:
                    keys.add(prefix + full)
    return keys, fields, syn

def tmpl_keys(path):
    """Leaf keys of a template; a list item's keys belong to the list."""
    keys, stack, item = set(), [], None
    for line in open(path):
        if re.match(r"^\s*(#|$)", line):
            continue
        ind = len(line) - len(line.lstrip(" "))
        if item is not None and ind > item:
            continue
        item = None
        if line.lstrip(" ").startswith("-"):
            item = ind
            continue
        m = re.match(r"^( *)([A-Za-z_][A-Za-z0-9_]*):(\s|$)", line)
        if m:
            stack = stack[:len(m.group(1)) // 2] + [m.group(2)]
            keys.add(".".join(stack))
    return {k for k in keys if not any(o.startswith(k + ".") for o in keys)}

keys, fields, syn = man_keys(man)
open("man_keys.txt", "w").write("\n".join(sorted(keys)) + "\n")
undoc = []
for t in tmpls:
    for k in sorted(tmpl_keys(t)):
        parts = k.split(".")
        if parts[0] in ("parameters",) and len(parts) == 4:
            ok = parts[3] in fields
        else:
            ok = k in keys or k in syn
        if not ok and k not in undoc:
            undoc.append(k)
open("undocumented.txt", "w").write("".join(u + "\n" for u in undoc))
# one YAML with every documented key set to null (a key that is also
# the parent of another documented key is left out: the deeper one
# stands for it)
tree = {}
for k in sorted(keys):
    if any(o.startswith(k + ".") for o in keys):
        continue
    d = tree
    for p in k.split(".")[:-1]:
        d = d.setdefault(p, {})
    d[k.split(".")[-1]] = None
def dump(d, ind, out):
    for k, v in d.items():
        if isinstance(v, dict):
            out.append("  " * ind + k + ":")
            dump(v, ind + 1, out)
        else:
            out.append("  " * ind + k + ": " + (v if v is not None else
                                                "null"))
for fam, mode in (("het", "two_component"), ("hom", "laminar_flow")):
    t = dict(tree)
    t["analysis_mode"] = mode
    out = []
    dump(t, 0, out)
    open("all_%s.yaml" % fam, "w").write("\n".join(out) + "\n")
PY
ok $? "the manual's keys and the templates' keys (python)"
n=$(wc -l <man_keys.txt)
unread=
for fam in het hom; do
	"$HETUI" config --check "all_$fam.yaml" -v >"check_$fam.out" 2>&1 ||
	    echo "config --check all_$fam.yaml failed" >>"check_$fam.out"
done
# a documented key is unread when both families report it not used
for k in $(cat man_keys.txt); do
	if grep -q ": $k: not used" check_het.out &&
	    grep -q ": $k: not used" check_hom.out; then
		unread="$unread $k"
	fi
done
bad=$(grep -h 'failed\|error' check_het.out check_hom.out | head -n 3)
[ -z "$bad" ]; ok $? "all $n documented keys set to null: a valid configuration in each family${bad:+ ($bad)}"
[ -z "$unread" ]; ok $? "every documented key is read${unread:+ (not read:$unread)}"
undoc=$(tr '\n' ' ' <undocumented.txt)
[ -z "$undoc" ]; ok $? "every key the templates write is documented${undoc:+ (not in hetui(1):$undoc)}"
