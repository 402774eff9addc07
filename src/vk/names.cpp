#include "vk/names.h"

#include <fmt/format.h>

#include <cctype>
#include <vulkan/vulkan.hpp>  // vk::to_string

namespace vkinfer::vk {

std::string formatName(VkFormat format) {
    // vulkan.hpp spells formats in CamelCase ("R8G8B8A8Unorm"): a word starts at an upper-case
    // letter that follows a lower-case one, or that a lower-case one follows.
    std::string camel = ::vk::to_string(static_cast<::vk::Format>(format));
    if (camel.rfind("invalid", 0) == 0) return fmt::format("VkFormat {}", static_cast<int>(format));
    std::string name = "VK_FORMAT_";
    for (size_t i = 0; i < camel.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(camel[i]);
        bool upper = std::isupper(c);
        bool afterLower = i > 0 && std::islower(static_cast<unsigned char>(camel[i - 1]));
        bool beforeLower = i + 1 < camel.size() && std::islower(static_cast<unsigned char>(camel[i + 1]));
        if (upper && i > 0 && (afterLower || (beforeLower && !std::isupper(static_cast<unsigned char>(camel[i - 1])))))
            name += '_';
        name += static_cast<char>(std::toupper(c));
    }
    return fmt::format("{} ({})", name, static_cast<int>(format));
}

}  // namespace vkinfer::vk
