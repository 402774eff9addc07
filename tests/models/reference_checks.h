// Checks shared by the model tests: outputs against a data set's reference outputs, and
// bit-identical results between runs or sync modes.
#pragma once

#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace vkinfer::testing {

inline bool sameBytes(const std::vector<NamedTensor>& a, const std::vector<NamedTensor>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].tensor.byteSize() != b[i].tensor.byteSize() ||
            std::memcmp(a[i].tensor.data(), b[i].tensor.data(), a[i].tensor.byteSize()) != 0)
            return false;
    return true;
}

// Expects every reference output among `outputs` (by name), with its type, within `tol`;
// returns the comparisons in the references' order (a missing output gives a failed one).
inline std::vector<Comparison> expectMatchesReferences(const std::vector<NamedTensor>& outputs,
                                                       const std::vector<NamedTensor>& references,
                                                       const Tolerance& tol, const std::string& what) {
    std::vector<Comparison> result;
    for (const auto& ref : references) {
        auto it = std::find_if(outputs.begin(), outputs.end(), [&](const NamedTensor& o) { return o.name == ref.name; });
        if (it == outputs.end()) {
            ADD_FAILURE() << what << ": output " << ref.name << " missing";
            result.emplace_back();
            continue;
        }
        EXPECT_EQ(it->tensor.dtype(), ref.tensor.dtype()) << what << " output " << ref.name;
        Comparison c = compareTensors(it->tensor, ref.tensor, tol);
        EXPECT_TRUE(c.pass) << what << " output " << ref.name << ": " << c.mismatches << " mismatches, max error "
                            << c.maxAbsError << " (max |ref| " << c.maxAbsExpected << ") " << c.problem;
        result.push_back(c);
    }
    return result;
}

}  // namespace vkinfer::testing
