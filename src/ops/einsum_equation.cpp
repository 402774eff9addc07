#include "ops/einsum_equation.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "ops/broadcast.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

namespace {

// One side of the equation's terms: its letters, and where the ellipsis stands (-1: none).
struct Term {
    std::string letters;
    int ellipsisAt = -1;
};

Term parseTerm(const graph::Node& n, const std::string& text) {
    Term t;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.') {
            if (text.compare(i, 3, "...") != 0 || t.ellipsisAt >= 0)
                shapeError(n, "equation term '{}': '.' only as one '...' per term", text);
            t.ellipsisAt = static_cast<int>(t.letters.size());
            i += 2;
        } else if (std::isalpha(static_cast<unsigned char>(c))) {
            t.letters.push_back(c);
        } else {
            shapeError(n, "equation term '{}': '{}' is not a letter", text, c);
        }
    }
    return t;
}

std::vector<std::string> splitTerms(const std::string& s) {
    std::vector<std::string> terms(1);
    for (char c : s) {
        if (c == ',') terms.emplace_back();
        else terms.back().push_back(c);
    }
    return terms;
}

}  // namespace

graph::Shape EinsumSpec::outputShape() const {
    graph::Shape out;
    for (int l : output) out.push_back(sizes[static_cast<size_t>(l)]);
    return out;
}

EinsumSpec resolveEinsum(const graph::Node& n, const std::string& equation, const std::vector<graph::Shape>& shapes) {
    std::string eq;
    for (char c : equation)
        if (!std::isspace(static_cast<unsigned char>(c))) eq.push_back(c);
    const size_t arrow = eq.find("->");
    const bool explicitOutput = arrow != std::string::npos;
    const std::vector<std::string> inputs = splitTerms(eq.substr(0, arrow));
    if (inputs.size() != shapes.size())
        shapeError(n, "equation '{}' has {} input terms for {} inputs", equation, inputs.size(), shapes.size());

    // Letters first (one label each, by first appearance), then the ellipsis' dimensions,
    // right-aligned across the operands as NumPy broadcasts them.
    std::array<int, 128> letterLabel;
    letterLabel.fill(-1);
    EinsumSpec s;
    std::vector<Term> terms;
    size_t ellipsisRank = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
        Term t = parseTerm(n, inputs[i]);
        const size_t rank = shapes[i].size();
        if (t.ellipsisAt < 0 ? t.letters.size() != rank : t.letters.size() > rank)
            shapeError(n, "equation term '{}' does not match input {} of rank {}", inputs[i], i, rank);
        if (t.ellipsisAt >= 0) ellipsisRank = std::max(ellipsisRank, rank - t.letters.size());
        for (char c : t.letters)
            if (letterLabel[static_cast<size_t>(c)] < 0) {
                letterLabel[static_cast<size_t>(c)] = static_cast<int>(s.sizes.size());
                s.sizes.push_back(-1);
            }
        terms.push_back(std::move(t));
    }
    const int firstEllipsisLabel = static_cast<int>(s.sizes.size());
    s.sizes.resize(s.sizes.size() + ellipsisRank, 1);

    auto setSize = [&](int label, int64_t size, size_t input, bool broadcasts) {
        int64_t& known = s.sizes[static_cast<size_t>(label)];
        if (known < 0 || (broadcasts && known == 1)) known = size;
        else if (size != known && !(broadcasts && size == 1))
            shapeError(n, "equation '{}': input {} gives a dimension size {} where another has {}", equation, input, size,
                       known);
    };
    for (size_t i = 0; i < terms.size(); ++i) {
        const Term& t = terms[i];
        const size_t covered = t.ellipsisAt < 0 ? 0 : shapes[i].size() - t.letters.size();
        std::vector<int>& axes = s.operands.emplace_back();
        for (size_t a = 0; a < shapes[i].size(); ++a) {
            const int64_t size = shapes[i][a];
            const size_t at = static_cast<size_t>(std::max(t.ellipsisAt, 0));
            if (t.ellipsisAt >= 0 && a >= at && a < at + covered) {
                const int label = firstEllipsisLabel + static_cast<int>(ellipsisRank - covered + (a - at));
                setSize(label, size, i, true);
                axes.push_back(label);
            } else {
                const char c = t.letters[a < at || t.ellipsisAt < 0 ? a : a - covered];
                const int label = letterLabel[static_cast<size_t>(c)];
                setSize(label, size, i, false);
                axes.push_back(label);
            }
        }
    }

    if (explicitOutput) {
        const Term out = parseTerm(n, eq.substr(arrow + 2));
        std::vector<bool> seen(s.sizes.size(), false);
        auto add = [&](int label) {
            if (seen[static_cast<size_t>(label)]) shapeError(n, "equation '{}' repeats an output subscript", equation);
            seen[static_cast<size_t>(label)] = true;
            s.output.push_back(label);
        };
        for (size_t k = 0; k <= out.letters.size(); ++k) {
            if (static_cast<int>(k) == out.ellipsisAt)
                for (size_t e = 0; e < ellipsisRank; ++e) add(firstEllipsisLabel + static_cast<int>(e));
            if (k == out.letters.size()) break;
            const int label = letterLabel[static_cast<size_t>(out.letters[k])];
            if (label < 0) shapeError(n, "equation '{}': output subscript '{}' is in no input", equation, out.letters[k]);
            add(label);
        }
    } else {
        for (size_t e = 0; e < ellipsisRank; ++e) s.output.push_back(firstEllipsisLabel + static_cast<int>(e));
        std::array<int, 128> count{};
        for (const Term& t : terms)
            for (char c : t.letters) ++count[static_cast<size_t>(c)];
        for (size_t c = 0; c < count.size(); ++c)
            if (count[c] == 1) s.output.push_back(letterLabel[c]);
    }
    return s;
}

EinsumGroups einsumGroups(const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& y) {
    auto has = [](const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); };
    EinsumGroups g;
    for (int l : y) (has(a, l) && has(b, l) ? g.batch : has(a, l) ? g.rows : g.cols).push_back(l);
    for (int l : a)
        if (!has(y, l)) (has(b, l) ? g.sum : g.onlyA).push_back(l);
    for (int l : b)
        if (!has(y, l) && !has(a, l)) g.onlyB.push_back(l);
    return g;
}

std::vector<int64_t> einsumStrides(const EinsumSpec& s, size_t i, const graph::Shape& shape) {
    std::vector<int64_t> strides(s.sizes.size(), 0);
    const std::vector<int64_t> contiguous = contiguousStrides(shape);
    for (size_t a = 0; a < shape.size(); ++a) {
        const auto label = static_cast<size_t>(s.operands[i][a]);
        if (shape[a] == s.sizes[label]) strides[label] += contiguous[a];  // else a size-1 dimension broadcast
    }
    return strides;
}

}  // namespace vkinfer::ops
