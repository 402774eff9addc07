#include "vkinfer/compare.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "vkinfer/tensor_io.h"

namespace vkinfer {

namespace fs = std::filesystem;

namespace {

bool isFloat(DataType t) { return t == DataType::Float32 || t == DataType::Float16 || t == DataType::Float64; }

}  // namespace

Comparison compareTensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol) {
    Comparison c;
    if (actual.shape() != expected.shape()) {
        c.problem = "shape " + shapeToString(actual.shape()) + " differs from the expected " + shapeToString(expected.shape());
        return c;
    }
    const bool exact = !isFloat(expected.dtype());
    // A reference of another element type says the model or the data set is not what the
    // check thinks it is (a float64 reference against a float32 output used to pass).
    if (actual.dtype() != expected.dtype()) {
        c.problem = std::string("type ") + dataTypeName(actual.dtype()) + " differs from the expected " +
                    dataTypeName(expected.dtype());
        return c;
    }
    const int64_t n = expected.elementCount();
    // The scale is the largest finite |expected|: one infinite reference value used to reset
    // it to 0 (and with it the relative atol of every other element).
    for (int64_t i = 0; i < n; ++i) {
        double r = std::abs(expected.getDouble(i));
        if (std::isfinite(r)) c.maxAbsExpected = std::max(c.maxAbsExpected, r);
    }
    c.atolUsed = exact ? 0 : tol.atol * (tol.atolRelativeToMax ? c.maxAbsExpected : 1.0);
    double worst = -1;
    for (int64_t i = 0; i < n; ++i) {
        double y, r;
        if (exact) {
            if (actual.getInt(i) == expected.getInt(i)) continue;
            y = static_cast<double>(actual.getInt(i));
            r = static_cast<double>(expected.getInt(i));
        } else {
            y = actual.getDouble(i);
            r = expected.getDouble(i);
            if (std::isnan(r) && std::isnan(y)) continue;
            if (std::isinf(r) && y == r) continue;
        }
        // An infinite reference is matched only by the same infinity: its bound rtol*|r| is
        // infinite, so any finite value or the opposite infinity used to pass.
        const bool infMismatch = std::isinf(r);
        double err = std::abs(y - r);
        if (std::isnan(err)) err = INFINITY;
        c.maxAbsError = std::max(c.maxAbsError, err);
        double bound = c.atolUsed + tol.rtol * std::abs(r);
        if (exact || infMismatch || !(err <= bound)) {
            ++c.mismatches;
            double rel = !infMismatch && bound > 0 ? err / bound : INFINITY;
            if (rel > worst) {
                worst = rel;
                c.worstIndex = i;
            }
        }
    }
    c.pass = c.mismatches == 0;
    return c;
}

std::vector<std::string> listTestDataSets(const std::string& modelDir) {
    std::vector<std::pair<int, std::string>> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(modelDir, ec)) {
        std::string name = e.path().filename().string();
        const std::string prefix = "test_data_set_";
        if (!e.is_directory() || name.rfind(prefix, 0) != 0) continue;
        int k = std::atoi(name.c_str() + prefix.size());
        found.emplace_back(k, e.path().string());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (auto& [k, p] : found) out.push_back(p);
    return out;
}

namespace {

// input_<i>.pb files in index order.
std::vector<std::string> numberedFiles(const std::string& dir, const std::string& prefix) {
    std::vector<std::string> out;
    for (int i = 0;; ++i) {
        fs::path p = fs::path(dir) / (prefix + std::to_string(i) + ".pb");
        if (!fs::exists(p)) break;
        out.push_back(p.string());
    }
    return out;
}

std::vector<NamedTensor> loadSide(const std::string& dir, const std::string& prefix, const std::vector<TensorDesc>& descs,
                                  const char* what) {
    auto files = numberedFiles(dir, prefix);
    // Inputs with a default (TensorDesc::hasDefault) may be left out of a data set.
    const size_t required = static_cast<size_t>(
        std::count_if(descs.begin(), descs.end(), [](const TensorDesc& d) { return !d.hasDefault; }));
    if (files.size() < required || files.size() > descs.size()) {
        const std::string expected = required == descs.size()
                                         ? fmt::format("{} {}s", descs.size(), what)
                                         : fmt::format("{} {}s, {} of them with a default", descs.size(), what,
                                                       descs.size() - required);
        fail(ErrorCode::InvalidArgument, "'{}' holds {} {} files; the model has {}", dir, files.size(), prefix + "*.pb",
             expected);
    }
    std::vector<NamedTensor> out;
    for (size_t i = 0; i < files.size(); ++i) {
        std::string name;
        Tensor t = unwrap(loadTensorProto(files[i], &name));
        bool known = std::any_of(descs.begin(), descs.end(), [&](const TensorDesc& d) { return d.name == name; });
        out.push_back({known ? name : descs[i].name, std::move(t)});
    }
    return out;
}

}  // namespace

Result<TestDataSet> loadTestDataSet(const std::string& dir, const Model& model) {
    return guardResult<TestDataSet>([&] {
        if (!fs::is_directory(dir)) fail(ErrorCode::NotFound, "'{}' is not a folder", dir);
        TestDataSet ds;
        ds.path = dir;
        ds.inputs = loadSide(dir, "input_", model.inputs(), "input");
        ds.outputs = loadSide(dir, "output_", model.outputs(), "output");
        return ds;
    });
}

}  // namespace vkinfer
