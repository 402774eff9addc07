#!/usr/bin/env python3
"""Writes the probe's GEMM with workgroup-scope matrices loaded through tensor layouts
(SPV_NV_tensor_addressing's OpCooperativeMatrixLoadTensorNV) as a SPIR-V module.

Neither Debian 12's glslc nor its spirv-as knows these instructions (nor SPV_KHR_cooperative_matrix),
so the assembly carries them as placeholders with numeric ids, spirv-as assembles it, and the
placeholders are then replaced by the instructions' words. The kernel is gemm_wg.comp's (the same
push constants and bindings, C = A B in float16 with float32 sums, no bounds checks), but A and B
are read as slices of 2-D tensor layouts (dimensions M x K and K x N, row strides lda and ldb),
the form llama.cpp's Vulkan backend uses on NVIDIA, instead of plain loads at an offset.

    gemm_tensor.py BM BN BK WG UNROLL OUT.spv [--plain-loads] [--b-nk] [--clamp]

--plain-loads writes gemm_wg.comp's plain loads instead (the rest of the module unchanged), to
tell a fault of the tensor loads from one of the module.
--b-nk reads B stored N x K (K contiguous, row stride ldb = K: how a Linear layer's weight and
llama.cpp's B operand lie) through a transposing tensor view (plain loads: column-major).
--clamp declares the layouts with clamp mode Constant (out-of-range elements read as zero, what
bounds checks would use) instead of Undefined.
"""
import struct
import subprocess
import sys

OP_TYPE_COOPMAT_KHR, OP_COOPMAT_LOAD_KHR, OP_COOPMAT_STORE_KHR, OP_COOPMAT_MULADD_KHR = 4456, 4457, 4458, 4459
OP_SOURCE_CONTINUED = 2
OP_COOPMAT_LOAD_TENSOR, OP_TYPE_TENSOR_LAYOUT, OP_CREATE_TENSOR_LAYOUT = 5367, 5370, 5372
OP_TENSOR_SET_DIMENSION, OP_TENSOR_SET_STRIDE, OP_TENSOR_SLICE = 5373, 5374, 5375
OP_TYPE_TENSOR_VIEW, OP_CREATE_TENSOR_VIEW = 5371, 5377
TENSOR_ADDRESSING_VIEW = 0x1  # Tensor Addressing Operands: a TensorView id follows
CLAMP_UNDEFINED, CLAMP_CONSTANT = 0, 1
CAPABILITIES = {"CooperativeMatrixKHR": 6022, "CooperativeMatrixTensorAddressingNV": 5433,
                "TensorAddressingNV": 5439}


class Ids:
    """Numeric ids by name, allocated in order of first use."""

    def __init__(self):
        self.ids = {}

    def __getitem__(self, name):
        return self.ids.setdefault(name, len(self.ids) + 1)

    def ref(self, name):
        return "%%%d" % self[name]


def main():
    flags = {"--plain-loads", "--b-nk", "--clamp"}
    args = [a for a in sys.argv[1:] if a not in flags]
    if len(args) != 6:
        sys.exit(__doc__)
    plain, b_nk, clamp = ("--plain-loads" in sys.argv, "--b-nk" in sys.argv, "--clamp" in sys.argv)
    try:
        bm, bn, bk, wg, unroll = (int(a) for a in args[:5])
    except ValueError:
        sys.exit("gemm_tensor.py: BM BN BK WG UNROLL must be whole numbers, not %s" % " ".join(args[:5]))
    if min(bm, bn, bk, wg, unroll) <= 0 or bk % 16 or bm % 16 or bn % 16:
        sys.exit("gemm_tensor.py: sizes must be positive and BM, BN, BK multiples of 16")
    out_path = args[5]
    ids = Ids()
    r = ids.ref
    lines = []

    def emit(text):
        lines.append(text)

    def raw(opcode, *operands):
        """An instruction spirv-as does not know (operands: id names or integer literals), as a
        placeholder that unraw() replaces after assembly. (spirv-as's own `!` words join the
        previous instruction wherever that one takes optional or variable operands.)"""
        words = [ids[o] if isinstance(o, str) else o for o in operands]
        emit('OpSourceContinued "RAW %s"' % " ".join(str(w) for w in [(len(words) + 1) << 16 | opcode] + words))

    emit("OpCapability Shader")
    emit("OpCapability Float16")
    emit("OpCapability StorageBuffer16BitAccess")
    emit("OpCapability VulkanMemoryModel")
    for value in CAPABILITIES.values():
        raw(17, value)  # OpCapability with an operand spirv-as may not know
    for ext in ("SPV_KHR_cooperative_matrix", "SPV_NV_cooperative_matrix2", "SPV_NV_tensor_addressing"):
        emit('OpExtension "%s"' % ext)
    emit("OpMemoryModel Logical Vulkan")
    emit('OpEntryPoint GLCompute %s "main" %s %s %s %s %s' % (r("main"), r("wgid"), r("pc"), r("bufA"), r("bufB"),
                                                             r("bufC")))
    emit("OpExecutionMode %s LocalSize %d 1 1" % (r("main"), wg))
    emit("OpDecorate %s BuiltIn WorkgroupId" % r("wgid"))
    emit("OpDecorate %s Block" % r("pcs"))
    for i in range(6):
        emit("OpMemberDecorate %s %d Offset %d" % (r("pcs"), i, 4 * i))
    emit("OpDecorate %s ArrayStride 2" % r("halves"))
    emit("OpDecorate %s Block" % r("sbuf"))
    emit("OpMemberDecorate %s 0 Offset 0" % r("sbuf"))
    for binding, buf in enumerate(("bufA", "bufB", "bufC")):
        emit("OpDecorate %s DescriptorSet 0" % r(buf))
        emit("OpDecorate %s Binding %d" % (r(buf), binding))

    emit("%s = OpTypeVoid" % r("void"))
    emit("%s = OpTypeFunction %s" % (r("fnvoid"), r("void")))
    emit("%s = OpTypeInt 32 0" % r("uint"))
    emit("%s = OpTypeVector %s 3" % (r("uint3"), r("uint")))
    emit("%s = OpTypePointer Input %s" % (r("ptr_in_uint3"), r("uint3")))
    emit("%s = OpTypeBool" % r("bool"))
    if b_nk:
        emit("%s = OpConstantFalse %s" % (r("false"), r("bool")))
    emit("%s = OpTypeFloat 16" % r("half"))
    emit("%s = OpTypeFloat 32" % r("float"))
    emit("%s = OpTypeStruct %s" % (r("pcs"), " ".join([r("uint")] * 6)))
    emit("%s = OpTypePointer PushConstant %s" % (r("ptr_pcs"), r("pcs")))
    emit("%s = OpTypePointer PushConstant %s" % (r("ptr_pc_uint"), r("uint")))
    emit("%s = OpTypeRuntimeArray %s" % (r("halves"), r("half")))
    emit("%s = OpTypeStruct %s" % (r("sbuf"), r("halves")))
    emit("%s = OpTypePointer StorageBuffer %s" % (r("ptr_sbuf"), r("sbuf")))
    emit("%s = OpTypePointer StorageBuffer %s" % (r("ptr_half"), r("half")))
    for value in sorted({0, 1, 2, 3, 4, 5, bm, bn, bk}):
        emit("%s = OpConstant %s %d" % (r("c%d" % value), r("uint"), value))
    emit("%s = OpConstant %s 0" % (r("h0"), r("half")))
    emit("%s = OpConstant %s 0" % (r("f0"), r("float")))
    # Matrix types: component, scope (Workgroup = 2), rows, columns, use (A 0, B 1, accumulator 2).
    raw(OP_TYPE_COOPMAT_KHR, "tA", "half", "c2", "c%d" % bm, "c%d" % bk, "c0")
    raw(OP_TYPE_COOPMAT_KHR, "tB", "half", "c2", "c%d" % bk, "c%d" % bn, "c1")
    raw(OP_TYPE_COOPMAT_KHR, "tAcc", "float", "c2", "c%d" % bm, "c%d" % bn, "c2")
    raw(OP_TYPE_COOPMAT_KHR, "tAcc16", "half", "c2", "c%d" % bm, "c%d" % bn, "c2")
    emit("%s = OpConstantComposite %s %s" % (r("zeroA"), r("tA"), r("h0")))
    emit("%s = OpConstantComposite %s %s" % (r("zeroB"), r("tB"), r("h0")))
    emit("%s = OpConstantComposite %s %s" % (r("zeroAcc"), r("tAcc"), r("f0")))
    raw(OP_TYPE_TENSOR_LAYOUT, "tl", "c2", "c%d" % (CLAMP_CONSTANT if clamp else CLAMP_UNDEFINED))  # two dimensions
    if b_nk:
        raw(OP_TYPE_TENSOR_VIEW, "tv", "c2", "false", "c1", "c0")  # two dimensions swapped: a transposing view
    emit("%s = OpVariable %s Input" % (r("wgid"), r("ptr_in_uint3")))
    emit("%s = OpVariable %s PushConstant" % (r("pc"), r("ptr_pcs")))
    for buf in ("bufA", "bufB", "bufC"):
        emit("%s = OpVariable %s StorageBuffer" % (r(buf), r("ptr_sbuf")))

    emit("%s = OpFunction %s None %s" % (r("main"), r("void"), r("fnvoid")))
    emit("%s = OpLabel" % r("entry"))
    emit("%s = OpLoad %s %s" % (r("wg"), r("uint3"), r("wgid")))
    emit("%s = OpCompositeExtract %s %s 0" % (r("wgx"), r("uint"), r("wg")))
    emit("%s = OpCompositeExtract %s %s 1" % (r("wgy"), r("uint"), r("wg")))
    emit("%s = OpIMul %s %s %s" % (r("m0"), r("uint"), r("wgy"), r("c%d" % bm)))
    emit("%s = OpIMul %s %s %s" % (r("n0"), r("uint"), r("wgx"), r("c%d" % bn)))
    for i, name in enumerate(("M", "N", "K", "lda", "ldb", "ldc")):
        emit("%s = OpAccessChain %s %s %s" % (r("p" + name), r("ptr_pc_uint"), r("pc"), r("c%d" % i)))
        emit("%s = OpLoad %s %s" % (r(name), r("uint"), r("p" + name)))
    if b_nk:
        raw(OP_CREATE_TENSOR_VIEW, "tv", "transpose")
    b_layout = ("lb", "N", "K", "ldb") if b_nk else ("lb", "K", "N", "ldb")
    for t, rows, cols, stride in (("la", "M", "K", "lda"), b_layout):
        raw(OP_CREATE_TENSOR_LAYOUT, "tl", t + "0")
        raw(OP_TENSOR_SET_DIMENSION, "tl", t + "1", t + "0", rows, cols)
        raw(OP_TENSOR_SET_STRIDE, "tl", t + "2", t + "1", stride, "c1")
    emit("%s = OpAccessChain %s %s %s %s" % (r("pA"), r("ptr_half"), r("bufA"), r("c0"), r("c0")))
    emit("%s = OpAccessChain %s %s %s %s" % (r("pB"), r("ptr_half"), r("bufB"), r("c0"), r("c0")))
    emit("OpBranch %s" % r("header"))

    emit("%s = OpLabel" % r("header"))
    emit("%s = OpPhi %s %s %s %s %s" % (r("k"), r("uint"), r("c0"), r("entry"), r("knext"), r("cont")))
    emit("%s = OpPhi %s %s %s %s %s" % (r("acc"), r("tAcc"), r("zeroAcc"), r("entry"), r("acc%d" % unroll), r("cont")))
    emit("OpLoopMerge %s %s None" % (r("merge"), r("cont")))
    emit("OpBranch %s" % r("cond"))
    emit("%s = OpLabel" % r("cond"))
    emit("%s = OpULessThan %s %s %s" % (r("more"), r("bool"), r("k"), r("K")))
    emit("OpBranchConditional %s %s %s" % (r("more"), r("body"), r("merge")))
    emit("%s = OpLabel" % r("body"))
    ids.ids["acc0"] = ids["acc"]
    for u in range(unroll):
        k = "k" if u == 0 else "k%d" % u
        if u:
            emit("%s = OpIAdd %s %s %s" % (r(k), r("uint"), r("k"), r("c%d" % bk) if u == 1 else r("kstep%d" % u)))
        if plain:  # gemm_wg.comp's plain loads at an offset, to tell this module's faults apart
            emit("%s = OpIMul %s %s %s" % (r("ra%d" % u), r("uint"), r("m0"), r("lda")))
            emit("%s = OpIAdd %s %s %s" % (r("oa%d" % u), r("uint"), r("ra%d" % u), r(k)))
            emit("%s = OpAccessChain %s %s %s %s" % (r("qa%d" % u), r("ptr_half"), r("bufA"), r("c0"), r("oa%d" % u)))
            raw(OP_COOPMAT_LOAD_KHR, "tA", "ma%d" % u, "qa%d" % u, "c0", "lda", 0)
            row, col = ("n0", k) if b_nk else (k, "n0")
            emit("%s = OpIMul %s %s %s" % (r("rb%d" % u), r("uint"), r(row), r("ldb")))
            emit("%s = OpIAdd %s %s %s" % (r("ob%d" % u), r("uint"), r("rb%d" % u), r(col)))
            emit("%s = OpAccessChain %s %s %s %s" % (r("qb%d" % u), r("ptr_half"), r("bufB"), r("c0"), r("ob%d" % u)))
            raw(OP_COOPMAT_LOAD_KHR, "tB", "mb%d" % u, "qb%d" % u, "c1" if b_nk else "c0", "ldb", 0)
        else:
            raw(OP_TENSOR_SLICE, "tl", "sa%d" % u, "la2", "m0", "c%d" % bm, k, "c%d" % bk)
            raw(OP_COOPMAT_LOAD_TENSOR, "tA", "ma%d" % u, "pA", "zeroA", "sa%d" % u, 0, 0)
            if b_nk:  # the N x K layout's slice, read transposed into the BK x BN matrix
                raw(OP_TENSOR_SLICE, "tl", "sb%d" % u, "lb2", "n0", "c%d" % bn, k, "c%d" % bk)
                raw(OP_COOPMAT_LOAD_TENSOR, "tB", "mb%d" % u, "pB", "zeroB", "sb%d" % u, 0, TENSOR_ADDRESSING_VIEW,
                    "transpose")
            else:
                raw(OP_TENSOR_SLICE, "tl", "sb%d" % u, "lb2", k, "c%d" % bk, "n0", "c%d" % bn)
                raw(OP_COOPMAT_LOAD_TENSOR, "tB", "mb%d" % u, "pB", "zeroB", "sb%d" % u, 0, 0)
        raw(OP_COOPMAT_MULADD_KHR, "tAcc", "acc%d" % (u + 1), "ma%d" % u, "mb%d" % u, "acc%d" % u)
    emit("OpBranch %s" % r("cont"))
    emit("%s = OpLabel" % r("cont"))
    step = r("c%d" % bk) if unroll == 1 else r("kstep%d" % unroll)
    emit("%s = OpIAdd %s %s %s" % (r("knext"), r("uint"), r("k"), step))
    emit("OpBranch %s" % r("header"))
    emit("%s = OpLabel" % r("merge"))
    emit("%s = OpFConvert %s %s" % (r("out16"), r("tAcc16"), r("acc")))
    emit("%s = OpIMul %s %s %s" % (r("rowC"), r("uint"), r("m0"), r("ldc")))
    emit("%s = OpIAdd %s %s %s" % (r("offC"), r("uint"), r("rowC"), r("n0")))
    emit("%s = OpAccessChain %s %s %s %s" % (r("pC"), r("ptr_half"), r("bufC"), r("c0"), r("offC")))
    raw(OP_COOPMAT_STORE_KHR, "pC", "out16", "c0", "ldc", 0)  # row-major, stride ldc, no memory operands
    emit("OpReturn")
    emit("OpFunctionEnd")

    # The K steps of the unrolled body (u * BK) as constants, declared with the others.
    steps = ["%s = OpConstant %s %d" % (r("kstep%d" % u), r("uint"), u * bk) for u in range(2, unroll + 1)]
    at = next(i for i, line in enumerate(lines) if "OpConstant " in line)
    lines[at:at] = steps
    try:
        asm = subprocess.run(["spirv-as", "--preserve-numeric-ids", "--target-env", "vulkan1.2", "-", "-o", "-"],
                             input="\n".join(lines).encode(), capture_output=True)
    except FileNotFoundError:
        sys.exit("gemm_tensor.py: spirv-as not found (Debian: apt install spirv-tools)")
    if asm.returncode:
        sys.exit("spirv-as: " + asm.stderr.decode())
    with open(out_path, "wb") as f:
        f.write(unraw(asm.stdout))


def unraw(binary):
    """The module with each placeholder OpSourceContinued "RAW w0 w1 ..." replaced by its words."""
    words = list(struct.unpack("<%dI" % (len(binary) // 4), binary))
    out, i = words[:5], 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        inst = words[i:i + count]
        if op == OP_SOURCE_CONTINUED:
            text = struct.pack("<%dI" % (count - 1), *inst[1:]).split(b"\0")[0].decode()
            if text.startswith("RAW "):
                inst = [int(w) for w in text.split()[1:]]
        out += inst
        i += count
    return struct.pack("<%dI" % len(out), *out)


if __name__ == "__main__":
    main()
