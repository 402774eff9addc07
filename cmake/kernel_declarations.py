#!/usr/bin/env python3
"""Generates both sides of every kernel's interface from its declaration.

  kernel_declarations.py DECLARATIONS_DIR OUT_DIR

Each shaders/kernels/<family>.toml declares one kernel family (one GLSL source): its variants
(the product of its axes and element types, or a listed subset) and, where it has them, its
push-constant block, its specialization constants beyond the shared ones (0-2 workgroup size,
3-5 fused activation: shaders/common.glsl) and its compile-time constants. From them this
script writes, into OUT_DIR:

  variants.cmake           vkinfer_shader(<variant> <source> DEFINES ...) for every variant
  kernel_ids.h             enum class KernelId (one value per variant) and its names
  kernel_table.cpp         the embedded SPIR-V, indexed by KernelId
  families/<family>.h      C++: constants, struct Push (with its size), enum SpecId, the axes
                           as enums with their per-value constants, and variant(...) -> KernelId
  families/<family>.glsl   GLSL: the same constants, the push-constant block and the
                           specialization constants, included by the shader

so that nothing of an interface is written twice by hand and a kernel that does not exist is
a compile error in C++ (there is no name to misspell). Only the Python standard library is
used (tomllib: Python 3.11, Debian 12's).

Declaration format (all keys optional but `source`):

  source = "conv2d_rt.comp"
  name = "conv2d_rt{tile}{epilogue}"   # variant names: axis values substituted in order;
                                       # default: the family name followed by each value
  types = ["f32", "f16"]               # element types: an axis of its own, last, named
                                       # <name>_<type>, compiled with -DT_<TYPE>
  defines = ["BK=8"]                   # for every variant
  only = ["a_b", ...]                  # the variants (names without the type) that exist,
                                       # when not the whole product
  [constants]  BK = 8                  # C++ constexpr and GLSL #define ("4u": a GLSL literal)
  [push]       fields = ["N", "alpha:float", ...]   # uint unless :float, :int or a vector
                                       # type (below); one member each, in order
               fields = ["dims[6]", "stride[2][6]", "begin[6]:int"]   # fixed-size arrays
  push_from = "conv2d_rt"              # or: the same block as another family's
  spec_from = "attention"              # another family's specialization constants first (a
                                       # second kernel of the same interface), then [spec]
  [spec]       SHUFFLE = 6             # uint, default 0; or { id = 9, default = 1 } or
                                       # { id = 9, type = "float" } (the default then 0.0)
  [axes.tile]                          # one table per axis, in order; each value a table of
  "128x128" = { WM = 16, WN = 16 }     # UPPERCASE constants (a -D define each, and a field of
  "64x64" = { WM = 8, WN = 8 }         # the C++ value table) and `defines` (flags)

The push-constant block is laid out as Vulkan lays out push constants (std430): uint, int and
float take 4 bytes and align to 4, and so do the elements of an array of them (stride 4:
`uint dims[6]` is 24 bytes; `uint stride[2][6]` is two such rows, 48 bytes, stride[k][d] at
4 * (6 k + d)); vec2/uvec2/ivec2 take 8 bytes aligned to 8, vec4/uvec4/ivec4 16 aligned to 16
(arrays of them: strides 8 and 16; vec3 is not supported). Fields are declared as written:
`uint dims[6];` in GLSL, `uint32_t dims[6];` in C++, a vec4 as `float mean[4];`. Where a vector
needs alignment the C++ struct gets an explicit padding member (`uint32_t pad12_[1];`), so
that it has no implicit padding and its size is the block's size (the end of its last member,
as the SPIR-V states it: what vkCmdPushConstants must be given); the header static_asserts
the size and every field's offset.
"""
import os
import re
import sys
import tomllib

TYPE_DATA = {  # suffix -> the DataType values that run on it (ops: booleans are bytes)
    "f32": ["Float32"], "f16": ["Float16"], "f64": ["Float64"],
    "i8": ["Int8"], "u8": ["UInt8", "Bool"], "i16": ["Int16"], "u16": ["UInt16"],
    "i32": ["Int32"], "u32": ["UInt32"], "i64": ["Int64"], "u64": ["UInt64"],
}


def fail(msg):
    sys.exit(f"kernel_declarations.py: {msg}")


def ident(value):
    """A C++ identifier for an axis value: "" -> none, "_res" -> res, "128x128" -> t128x128."""
    v = value.strip("_")
    if not v:
        return "none"
    v = re.sub(r"[^A-Za-z0-9_]", "_", v)
    return v if re.match(r"[A-Za-z_]", v) else "t" + v


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def value_constants(data):
    return {k: v for k, v in data.items() if k.isupper()}


def define_of(key, value):
    return f"{key}={value}"


def int_of(value):
    """A constant's value for C++: an int, or a GLSL literal such as "4u"."""
    return int(str(value).rstrip("u"))


class Family:
    def __init__(self, path):
        self.path = path
        self.name = os.path.splitext(os.path.basename(path))[0]
        with open(path, "rb") as f:
            d = tomllib.load(f)
        known = {"source", "name", "types", "defines", "only", "constants", "push", "push_from", "spec", "spec_from",
                 "axes"}
        for k in d:
            if k not in known:
                fail(f"{path}: unknown key '{k}' (known: {', '.join(sorted(known))})")
        if "source" not in d:
            fail(f"{path}: no 'source'")
        self.source = d["source"]
        self.axes = [(a, list(vals.items())) for a, vals in d.get("axes", {}).items()]
        self.pattern = d.get("name", self.name + "".join("{%s}" % a for a, _ in self.axes))
        self.types = d.get("types", [])
        for t in self.types:
            if t not in TYPE_DATA:
                fail(f"{path}: unknown type '{t}'")
        self.defines = d.get("defines", [])
        self.only = d.get("only")
        self.constants = d.get("constants", {})
        self.push = d.get("push", {}).get("fields", [])
        self.push_from = d.get("push_from")
        if self.push_from and self.push:
            fail(f"{path}: 'push' and 'push_from' together")
        self.spec = []
        for sname, s in d.get("spec", {}).items():
            if isinstance(s, int):
                s = {"id": s}
            sid = s["id"]
            if sid < 6:
                fail(f"{path}: specialization constant {sname} has id {sid}; 0-5 are shared (common.glsl)")
            if s.get("type", "uint") not in ("uint", "int", "float"):
                fail(f"{path}: specialization constant {sname}: type must be uint, int or float")
            self.spec.append((sname, sid, s.get("type", "uint"), s.get("default", 0)))
        self.spec_from = d.get("spec_from")
        self.check_spec_ids()

    def check_spec_ids(self):
        ids = [s[1] for s in self.spec]
        if len(set(ids)) != len(ids):
            fail(f"{self.path}: two specialization constants share an id")

    def take_spec_from(self, by_name):
        """Prepends the specialization constants of the family `spec_from` names."""
        if not self.spec_from:
            return
        other = by_name.get(self.spec_from)
        if other is None or other.spec_from:
            fail(f"{self.path}: spec_from names no family '{self.spec_from}' with constants of its own")
        self.spec = other.spec + self.spec
        self.check_spec_ids()

    def combos(self):
        """Every (axis value indices) in row-major order."""
        out = [[]]
        for _, vals in self.axes:
            out = [c + [i] for c in out for i in range(len(vals))]
        return out

    def base_name(self, combo):
        name = self.pattern
        for (axis, vals), i in zip(self.axes, combo):
            name = name.replace("{%s}" % axis, vals[i][0])
        if "{" in name:
            fail(f"{self.path}: the name pattern '{self.pattern}' names an axis that is not declared")
        return name

    def variants(self):
        """(name, defines, combo, type index or None) of every variant, in table order."""
        out = []
        names = set()
        for combo in self.combos():
            base = self.base_name(combo)
            if self.only is not None and base not in self.only:
                continue
            names.add(base)
            defs = list(self.defines)
            for (axis, vals), i in zip(self.axes, combo):
                data = vals[i][1]
                defs += data.get("defines", [])
                defs += [define_of(k, v) for k, v in value_constants(data).items()]
            if self.types:
                for ti, t in enumerate(self.types):
                    out.append((f"{base}_{t}", defs + [f"T_{t.upper()}"], combo, ti))
            else:
                out.append((base, defs, combo, None))
        if self.only is not None:
            missing = set(self.only) - names
            if missing:
                fail(f"{self.path}: 'only' lists variants the axes do not make: {', '.join(sorted(missing))}")
        return out


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# Push-field types: (C++ element type, components), every component 4 bytes; std430 aligns a
# field (and each element of an array of it) to its size: 4, 8 or 16 bytes.
FIELD_TYPES = {
    "uint": ("uint32_t", 1), "int": ("int32_t", 1), "float": ("float", 1),
    "uvec2": ("uint32_t", 2), "ivec2": ("int32_t", 2), "vec2": ("float", 2),
    "uvec4": ("uint32_t", 4), "ivec4": ("int32_t", 4), "vec4": ("float", 4),
}
FIELD_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)((?:\[[0-9]+\])*)(?::([A-Za-z0-9_]+))?$")


class PushField:
    def __init__(self, name, ty, dims):
        self.name, self.ty, self.dims, self.offset = name, ty, dims, 0
        self.ctype, self.components = FIELD_TYPES[ty]
        self.align = 4 * self.components
        n = 1
        for d in dims:
            n *= d
        self.size = n * self.align

    def glsl(self):
        return f"{self.ty} {self.name}" + "".join(f"[{d}]" for d in self.dims) + ";"

    def cpp(self):
        dims = list(self.dims) + ([self.components] if self.components > 1 else [])
        return f"{self.ctype} {self.name}" + "".join(f"[{d}]" for d in dims) + ";" + (
            f"  // {self.ty}" if self.components > 1 else "")


def push_fields(fam):
    """The block's members with their std430 offsets (see the docstring)."""
    out = []
    offset = 0
    names = set()
    for f in fam.push:
        m = FIELD_RE.match(f.replace(" ", ""))
        if not m:
            fail(f"{fam.path}: push field '{f}': expected name, name:type, name[N] or name[N][M]:type")
        name, dims, ty = m.group(1), [int(d) for d in re.findall(r"[0-9]+", m.group(2))], m.group(3) or "uint"
        if ty not in FIELD_TYPES:
            fail(f"{fam.path}: push field {f}: type must be one of {', '.join(FIELD_TYPES)}")
        if any(d == 0 for d in dims):
            fail(f"{fam.path}: push field {f}: an array needs at least one element")
        if name in names:
            fail(f"{fam.path}: push field {name} is declared twice")
        names.add(name)
        field = PushField(name, ty, dims)
        offset = (offset + field.align - 1) // field.align * field.align
        field.offset = offset
        out.append(field)
        offset += field.size
    return out


def push_bytes(fam):
    """The block's size: the end of its last member (what the SPIR-V's block states)."""
    fields = push_fields(fam)
    return fields[-1].offset + fields[-1].size if fields else 0


MAX_PUSH = 128


def family_header(fam, ids):
    src = os.path.relpath(fam.path, os.path.dirname(os.path.dirname(os.path.dirname(fam.path))))
    L = [f"// Generated by cmake/kernel_declarations.py from {src}. Do not edit.", "#pragma once", "",
         "#include <array>", "#include <cstddef>", "#include <cstdint>", "#include <optional>", "",
         '#include "kernels/kernel_ids.h"', '#include "vkinfer/tensor.h"', "",
         f"namespace vkinfer::kernels::{fam.name} {{", "",
         f'inline constexpr const char* kSource = "{fam.source}";']
    for k, v in fam.constants.items():
        L.append(f"inline constexpr int64_t {k} = {int_of(v)};")
    fields = push_fields(fam)
    if fam.push_from:
        L.insert(L.index('#include "vkinfer/tensor.h"') + 1, f'#include "kernels/families/{fam.push_from}.h"')
        L += ["", f"using Push = {fam.push_from}::Push;  // the same block as {fam.push_from}"]
    if fields:
        L += ["", "// The push-constant block (layout(push_constant) uniform Params ... p), std430."]
        L.append("struct Push {")
        at = 0
        for f in fields:
            if f.offset > at:
                L.append(f"    uint32_t pad{at}_[{(f.offset - at) // 4}];  // std430: {f.name} is {f.align}-byte aligned")
            L.append(f"    {f.cpp()}")
            at = f.offset + f.size
        L.append("};")
        L.append(f"static_assert(sizeof(Push) == {push_bytes(fam)}, \"the std430 block's size\");")
        if any(f.dims or f.components > 1 for f in fields):
            L += [f"static_assert(offsetof(Push, {f.name}) == {f.offset});" for f in fields
                  if f.dims or f.components > 1]
    if fam.spec:
        L += ["", "// Specialization constant ids (0-2 workgroup size and 3-5 the activation are shared)."]
        L.append("enum SpecId : uint32_t {")
        L += [f"    k{camel(n.lower())} = {i}," for n, i, _, _ in fam.spec]
        L.append("};")
    for axis, vals in fam.axes:
        enum = camel(axis)
        L += ["", f"enum class {enum} : uint8_t {{ " + ", ".join(ident(v) for v, _ in vals) + " };"]
        consts = []
        for _, data in vals:
            for k in value_constants(data):
                if k not in consts:
                    consts.append(k)
        if consts:
            L.append(f"struct {enum}Value {{")
            L.append(f"    {enum} value;")
            L += [f"    int64_t {k};" for k in consts]
            L.append("};")
            rows = []
            for v, data in vals:
                cs = value_constants(data)
                rows.append("{" + ", ".join([f"{enum}::{ident(v)}"] + [str(int_of(cs.get(k, 0))) for k in consts]) + "}")
            L.append(f"inline constexpr std::array<{enum}Value, {len(vals)}> k{enum}Values = {{{{" + ", ".join(rows) + "}};")
    # variant(...)
    variants = fam.variants()
    nt = max(1, len(fam.types))
    table = []
    by_key = {(tuple(c), t): n for n, _, c, t in variants}
    for combo in fam.combos():
        for ti in range(nt):
            n = by_key.get((tuple(combo), ti if fam.types else None))
            table.append(f"KernelId::{n}" if n else "KernelId::none")
    params = [f"{camel(a)} {a}" for a, _ in fam.axes] + (["DataType type"] if fam.types else [])
    partial = bool(fam.types) or fam.only is not None
    ret = "std::optional<KernelId>" if partial else "KernelId"
    L += ["", f"inline constexpr std::array<KernelId, {len(table)}> kVariants = {{{{", "    " + ", ".join(table) + "}};"]
    if fam.types:
        L += ["", "// The element type's place among the family's types; -1 when it has no variant.",
              "inline int typeIndex(DataType type) {", "    switch (type) {"]
        for ti, t in enumerate(fam.types):
            for dt in TYPE_DATA[t]:
                L.append(f"        case DataType::{dt}: return {ti};")
        L += ["        default: return -1;", "    }", "}"]
    L += ["", ("// The variant for these axis values" + (" and element type" if fam.types else "") +
               (" (none where the build has no such variant)." if partial else ".")),
          f"inline {ret} variant({', '.join(params)}) {{"]
    index = "0"
    for a, vals in fam.axes:
        index = f"({index}) * {len(vals)} + static_cast<int>({a})" if index != "0" else f"static_cast<int>({a})"
    if fam.types:
        L.append("    const int t = typeIndex(type);")
        L.append("    if (t < 0) return std::nullopt;")
        index = f"({index}) * {nt} + t"
    L.append(f"    const KernelId k = kVariants[static_cast<size_t>({index})];")
    if partial:
        L.append("    if (k == KernelId::none) return std::nullopt;")
    L.append("    return k;")
    L += ["}", "", f"}}  // namespace vkinfer::kernels::{fam.name}", ""]
    return "\n".join(L)


def family_glsl(fam, by_name):
    src = os.path.relpath(fam.path, os.path.dirname(os.path.dirname(os.path.dirname(fam.path))))
    L = [f"// Generated by cmake/kernel_declarations.py from {src}. Do not edit."]
    for k, v in fam.constants.items():
        L.append(f"#define {k} {v}")
    fields = push_fields(by_name[fam.push_from] if fam.push_from else fam)
    if fields:
        L.append("layout(push_constant) uniform Params {")
        L += [f"    {f.glsl()}" for f in fields]
        L.append("} p;")
    for n, i, t, dflt in fam.spec:
        lit = f"{float(dflt)}" if t == "float" else f"{int(dflt)}u" if t == "uint" else f"{int(dflt)}"
        L.append(f"layout(constant_id = {i}) const {t} {n} = {lit};")
    return "\n".join(L) + "\n"


def main():
    if len(sys.argv) != 3:
        fail("usage: kernel_declarations.py DECLARATIONS_DIR OUT_DIR")
    decl_dir, out = sys.argv[1], sys.argv[2]
    fams = [Family(os.path.join(decl_dir, f)) for f in sorted(os.listdir(decl_dir)) if f.endswith(".toml")]
    if not fams:
        fail(f"no declarations in {decl_dir}")
    by_name = {f.name: f for f in fams}
    for fam in fams:
        fam.take_spec_from(by_name)
    all_variants = []
    seen = {}
    for fam in fams:
        for n, defs, _, _ in fam.variants():
            if n in seen:
                fail(f"variant {n} is declared by {seen[n]} and {fam.path}")
            seen[n] = fam.path
            all_variants.append((n, fam, defs))

    cm = ["# Generated by cmake/kernel_declarations.py. Do not edit."]
    for n, fam, defs in all_variants:
        cm.append(f"vkinfer_shader({n} {fam.source}" + (" DEFINES " + " ".join(defs) if defs else "") + ")")
    write_if_changed(os.path.join(out, "variants.cmake"), "\n".join(cm) + "\n")

    ids = ["// Generated by cmake/kernel_declarations.py from shaders/kernels/*.toml. Do not edit.",
           "// Every kernel variant the engine embeds, by name: a kernel that does not exist cannot be",
           "// named. kernels/families/<family>.h picks a variant from its axes.", "#pragma once", "",
           "#include <cstddef>", "#include <cstdint>", "#include <optional>", "#include <string_view>", "",
           "namespace vkinfer::kernels {", "", "enum class KernelId : uint16_t {"]
    ids += [f"    {n}," for n, _, _ in all_variants]
    ids += ["    none,  // no variant (a family's kVariants for combinations that are not built)", "};",
            f"inline constexpr size_t kKernelCount = {len(all_variants)};",
            "// Push constants every Vulkan device offers (maxPushConstantsSize >= 128); each declared",
            "// block is checked against it when the declarations are read.",
            f"inline constexpr size_t kMaxPushConstantBytes = {MAX_PUSH};", "",
            "// The variant's name (as plans, profiles and traces print it).",
            "std::string_view kernelName(KernelId id);",
            "// The variant of that name, if the build has it (tests, tools).",
            "std::optional<KernelId> findKernel(std::string_view name);", "",
            "}  // namespace vkinfer::kernels", ""]
    write_if_changed(os.path.join(out, "kernel_ids.h"), "\n".join(ids))

    tab = ["// Generated by cmake/kernel_declarations.py. Do not edit.", '#include "core/kernel_table.h"', "",
           "namespace vkinfer::kernels {", "namespace {", ""]
    for n, _, _ in all_variants:
        tab += [f"const uint32_t k_{n}[] =", f'#include "shaders/{n}.inc"', ";"]
    tab += ["", "// What each variant's declaration states of its interface (shaders/kernels/*.toml).",
            "const KernelInterface kInterfaces[] = {"]
    by_name0 = {f.name: f for f in fams}
    for n, fam, _ in all_variants:
        pf = by_name0[fam.push_from] if fam.push_from else fam
        declared = bool(fam.push or fam.push_from or fam.spec)
        spec = ", ".join(str(i) for _, i, _, _ in fam.spec)
        tab.append(f"    {{{'true' if declared else 'false'}, {push_bytes(pf)}, {{{spec}}}}},")
    tab += ["};", "", "const KernelBlob kBlobs[] = {"]
    tab += [f'    {{"{n}", k_{n}, sizeof(k_{n}) / sizeof(uint32_t)}},' for n, _, _ in all_variants]
    tab += ["};", "", "}  // namespace", "",
            "const KernelBlob& blob(KernelId id) { return kBlobs[static_cast<size_t>(id)]; }",
            "std::span<const KernelBlob> table() { return kBlobs; }",
            "const KernelInterface& declaredInterface(KernelId id) { return kInterfaces[static_cast<size_t>(id)]; }",
            "std::string_view kernelName(KernelId id) {",
            '    return id == KernelId::none ? std::string_view("none") : kBlobs[static_cast<size_t>(id)].name;',
            "}",
            "std::optional<KernelId> findKernel(std::string_view name) {",
            "    for (size_t i = 0; i < kKernelCount; ++i)",
            "        if (kBlobs[i].name == name) return static_cast<KernelId>(i);",
            "    return std::nullopt;", "}", "", "}  // namespace vkinfer::kernels", ""]
    write_if_changed(os.path.join(out, "kernel_table.cpp"), "\n".join(tab))

    for fam in fams:
        if push_bytes(fam) > MAX_PUSH:
            fail(f"{fam.path}: {push_bytes(fam)} bytes of push constants; every device offers {MAX_PUSH}")
    for fam in fams:
        if fam.push_from and fam.push_from not in by_name:
            fail(f"{fam.path}: push_from names no family '{fam.push_from}'")
        write_if_changed(os.path.join(out, "families", fam.name + ".h"), family_header(fam, None))
        if fam.push or fam.push_from or fam.spec or fam.constants:
            write_if_changed(os.path.join(out, "families", fam.name + ".glsl"), family_glsl(fam, by_name))


if __name__ == "__main__":
    main()
