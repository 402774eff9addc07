// .npy and TensorProto (.pb) files.
#include "vkinfer/tensor_io.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "io/onnx_tensor.h"
#include "io/tensor_bytes.h"
#include "io/whole_file.h"

namespace vkinfer {

namespace {

struct NpyType {
    const char* code;
    DataType type;
};
constexpr NpyType kNpyTypes[] = {
    {"f4", DataType::Float32}, {"f2", DataType::Float16}, {"f8", DataType::Float64}, {"i1", DataType::Int8},
    {"i2", DataType::Int16},   {"i4", DataType::Int32},   {"i8", DataType::Int64},   {"u1", DataType::UInt8},
    {"u2", DataType::UInt16},  {"u4", DataType::UInt32},  {"u8", DataType::UInt64},  {"b1", DataType::Bool},
};

// Value of `key` in the header dict: the text after "'key':" up to the matching delimiter.
std::string headerField(const std::string& header, const std::string& key, const std::string& path) {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) fail(ErrorCode::ParseError, "'{}': .npy header has no '{}'", path, key);
    size_t colon = header.find(':', k);
    size_t start = header.find_first_not_of(' ', colon + 1);
    if (start == std::string::npos) fail(ErrorCode::ParseError, "'{}': .npy header is truncated", path);
    char open = header[start];
    char close = open == '(' ? ')' : open == '\'' ? '\'' : ',';
    size_t end = header.find(close, start + 1);
    if (end == std::string::npos) fail(ErrorCode::ParseError, "'{}': .npy header is truncated", path);
    return header.substr(start, end - start + 1);
}

Tensor parseNpy(const std::string& bytes, const std::string& path) {
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
        fail(ErrorCode::ParseError, "'{}' is not a .npy file (bad magic)", path);
    unsigned major = static_cast<unsigned char>(bytes[6]);
    size_t headerLen, headerStart;
    if (major == 1) {
        headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) fail(ErrorCode::ParseError, "'{}': truncated .npy header", path);
        headerLen = 0;
        for (int i = 0; i < 4; ++i) headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
        headerStart = 12;
    } else {
        fail(ErrorCode::ParseError, "'{}': unsupported .npy version {}", path, major);
    }
    if (headerStart + headerLen > bytes.size()) fail(ErrorCode::ParseError, "'{}': truncated .npy header", path);
    std::string header = bytes.substr(headerStart, headerLen);

    // The format's header holds exactly these keys; any other is not a file numpy wrote.
    for (size_t q = header.find('\''); q != std::string::npos; q = header.find('\'', q + 1)) {
        const size_t end = header.find('\'', q + 1);
        if (end == std::string::npos) break;
        const size_t colon = header.find_first_not_of(' ', end + 1);
        if (colon != std::string::npos && header[colon] == ':') {
            const std::string key = header.substr(q + 1, end - q - 1);
            if (key != "descr" && key != "fortran_order" && key != "shape")
                fail(ErrorCode::ParseError, "'{}': .npy header has a key '{}' (the format has descr, fortran_order, shape)",
                     path, key);
        }
        q = end;
    }
    std::string descr = headerField(header, "descr", path);
    if (descr.size() < 4) fail(ErrorCode::ParseError, "'{}': bad dtype {}", path, descr);
    std::string code = descr.substr(1, descr.size() - 2);  // strip quotes
    char order = code[0];
    std::string kind = code.substr(1);
    if (order == '>' && kind != "i1" && kind != "u1" && kind != "b1")
        fail(ErrorCode::Unsupported, "'{}': big-endian .npy data is not supported", path);
    DataType type = DataType::Undefined;
    for (const auto& t : kNpyTypes)
        if (kind == t.code) type = t.type;
    if (type == DataType::Undefined) fail(ErrorCode::Unsupported, "'{}': unsupported .npy dtype {}", path, descr);

    if (headerField(header, "fortran_order", path).find("True") != std::string::npos)
        fail(ErrorCode::Unsupported, "'{}': Fortran-order .npy arrays are not supported", path);

    std::string shapeText = headerField(header, "shape", path);
    std::vector<int64_t> shape;
    std::string num;
    for (char c : shapeText) {
        if (c >= '0' && c <= '9') {
            num += c;
            continue;
        }
        // Anything but digits, separators, the parentheses and Python 2's long suffix
        // ("(3L, 4L)") used to be skipped silently, reading "(-1, 3)" as 1x3.
        if (c != ',' && c != ' ' && c != '(' && c != ')' && c != 'L')
            fail(ErrorCode::ParseError, "'{}': bad .npy shape {}", path, shapeText);
        if (!num.empty()) {
            // More digits than int64 holds made std::stoll throw (an Internal error).
            if (num.size() > 18) fail(ErrorCode::ParseError, "'{}': .npy dimension {} is too large", path, num);
            shape.push_back(std::stoll(num));
            num.clear();
        }
    }
    size_t dataStart = headerStart + headerLen;
    // Checked before allocating: a shape whose size overflows or exceeds the file used to be
    // allocated first (out of host memory, or a wrapped-around tiny tensor on overflow).
    uint64_t need = io::checkedByteSize(shape, type, "'" + path + "'");
    if (bytes.size() - dataStart < need)
        fail(ErrorCode::ParseError, "'{}': .npy data is truncated ({} bytes, {} expected for {} {})", path,
             bytes.size() - dataStart, need, dataTypeName(type), shapeToString(shape));
    // More bytes than the header's array: another file's data, or a header that lies.
    if (bytes.size() - dataStart > need)
        fail(ErrorCode::ParseError, "'{}': {} byte{} follow{} the .npy data ({} {} is {} bytes)", path,
             bytes.size() - dataStart - need, bytes.size() - dataStart - need == 1 ? "" : "s",
             bytes.size() - dataStart - need == 1 ? "s" : "", dataTypeName(type), shapeToString(shape), need);
    Tensor t(type, shape);
    std::memcpy(t.data(), bytes.data() + dataStart, t.byteSize());
    io::normalizeBools(t);
    return t;
}

}  // namespace

namespace io {

Tensor parseNpyBytes(const std::string& bytes, const std::string& label) { return parseNpy(bytes, label); }

Tensor parseTensorProtoBytes(const std::string& bytes, const std::string& label, std::string* name) {
    onnx::TensorProto proto;
    if (!proto.ParseFromString(bytes))
        fail(ErrorCode::ParseError, "'{}' is not a valid ONNX TensorProto (truncated?)", label);
    if (name) *name = proto.name();
    return tensorFromProto(proto, label);
}

}  // namespace io

Result<Tensor> loadNpy(const std::string& path) {
    return guardResult<Tensor>([&] { return parseNpy(io::readWholeFile(path, "tensor file"), path); });
}

Status saveNpy(const std::string& path, const Tensor& tensor) {
    return guardStatus([&] {
        const char* code = nullptr;
        for (const auto& t : kNpyTypes)
            if (t.type == tensor.dtype()) code = t.code;
        if (!code) fail(ErrorCode::Unsupported, "cannot write {} tensors to .npy", dataTypeName(tensor.dtype()));
        std::string shape = "(";
        for (size_t i = 0; i < tensor.shape().size(); ++i) {
            shape += std::to_string(tensor.shape()[i]);
            shape += (tensor.shape().size() == 1 || i + 1 < tensor.shape().size()) ? "," : "";
            if (i + 1 < tensor.shape().size()) shape += ' ';
        }
        shape += ")";
        std::string prefix = code[0] == 'i' || code[0] == 'f' || code[0] == 'u' ? "<" : "|";
        if (std::string(code) == "i1" || std::string(code) == "u1") prefix = "|";
        std::string header = "{'descr': '" + prefix + code + "', 'fortran_order': False, 'shape': " + shape + ", }";
        size_t total = 10 + header.size() + 1;
        header.append((64 - total % 64) % 64, ' ');
        header += '\n';
        std::ofstream f(path, std::ios::binary);
        if (!f) fail(ErrorCode::NotFound, "cannot create '{}'", path);
        f.write("\x93NUMPY\x01\x00", 8);
        uint16_t len = static_cast<uint16_t>(header.size());
        char lenBytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
        f.write(lenBytes, 2);
        f.write(header.data(), static_cast<std::streamsize>(header.size()));
        f.write(reinterpret_cast<const char*>(tensor.data()), static_cast<std::streamsize>(tensor.byteSize()));
        if (!f) fail(ErrorCode::Internal, "writing '{}' failed", path);
    });
}

Result<Tensor> loadTensorProto(const std::string& path, std::string* name) {
    return guardResult<Tensor>(
        [&] { return io::parseTensorProtoBytes(io::readWholeFile(path, "tensor file"), path, name); });
}

Status saveTensorProto(const std::string& path, const Tensor& tensor, const std::string& name) {
    return guardStatus([&] {
        onnx::TensorProto proto;
        io::tensorToProto(tensor, name, &proto);
        std::ofstream f(path, std::ios::binary);
        if (!f || !proto.SerializeToOstream(&f)) fail(ErrorCode::NotFound, "cannot write '{}'", path);
    });
}

Result<Tensor> loadTensorFile(const std::string& path) {
    auto endsWith = [&](const char* ext) {
        size_t n = std::strlen(ext);
        return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
    };
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Status(ErrorCode::InvalidArgument, "'" + path + "' is a folder, not a tensor file (.npy or .pb)");
    if (endsWith(".npy")) return loadNpy(path);
    if (endsWith(".pb")) return loadTensorProto(path);
    return Status(ErrorCode::InvalidArgument, "'" + path + "': unknown tensor file type (expected .npy or .pb)");
}

Result<NamedTensor> loadNamedTensorFile(const std::string& path) {
    std::string name;
    const bool pb = path.size() >= 3 && path.compare(path.size() - 3, 3, ".pb") == 0;
    auto t = pb ? loadTensorProto(path, &name) : loadTensorFile(path);
    if (!t.ok()) return t.status();
    return NamedTensor{name, std::move(t).value()};
}

}  // namespace vkinfer
