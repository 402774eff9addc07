// Messages read as English: "an int32 tensor", "1 node" / "2 nodes".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vkinfer {

// `word` with its indefinite article ("a float32", "an int32", "a uint8").
inline std::string withArticle(std::string_view word) {
    const bool vowel = !word.empty() && std::string_view("aeio").find(word[0]) != std::string_view::npos;
    const bool u = !word.empty() && word[0] == 'u' && !word.starts_with("uint");
    return std::string(vowel || u ? "an " : "a ") + std::string(word);
}

// "1 node", "3 nodes"; `plural` where it is not `singular` + "s".
inline std::string counted(int64_t n, std::string_view singular, std::string_view plural = {}) {
    const std::string many = plural.empty() ? std::string(singular) + "s" : std::string(plural);
    return std::to_string(n) + " " + (n == 1 ? std::string(singular) : many);
}

}  // namespace vkinfer
