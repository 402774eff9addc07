#include <common.h>

#include "binding.h"

namespace vkinfer::python {

CollectWarnings::CollectWarnings() {
    previous_ = cli::setWarningSink([this](const std::string& message) { messages_.push_back(message); });
}

CollectWarnings::~CollectWarnings() { cli::setWarningSink(std::move(previous_)); }

void CollectWarnings::issue() {
    std::vector<std::string> messages;
    std::swap(messages, messages_);
    for (const auto& message : messages)
        if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) throw py::error_already_set();  // -W error
}

}  // namespace vkinfer::python
