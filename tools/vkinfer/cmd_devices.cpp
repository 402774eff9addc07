// vkinfer devices: what each Vulkan device offers.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common.h"

namespace vkinfer::cli {

namespace {

const char* yesNo(bool b) { return b ? "yes" : "no"; }

std::string uuidString(const std::array<uint8_t, 16>& u) {
    std::string s;
    for (size_t i = 0; i < u.size(); ++i) s += fmt::format("{}{:02x}", (i == 4 || i == 6 || i == 8 || i == 10) ? "-" : "", u[i]);
    return s;
}

void printDevices(bool json, int only) {
    auto devices = orDie(listDevices());
    if (only >= 0) {  // --device N: just that one
        if (static_cast<size_t>(only) >= devices.size())
            throw CliError(fmt::format("device {} does not exist ({} found)", only, devices.size()));
        devices = {devices[static_cast<size_t>(only)]};
    }
    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& d : devices)
            out.push_back({{"index", d.index},
                           {"name", d.name},
                           {"type", d.type},
                           {"driver", d.driverName},
                           {"driver_info", d.driverInfo},
                           {"vulkan", d.apiVersionString},
                           {"uuid", uuidString(d.deviceUuid)},
                           {"fp16_arithmetic", d.fp16Arithmetic},
                           {"storage_16bit", d.storage16Bit},
                           {"int8_arithmetic", d.int8Arithmetic},
                           {"external_memory_fd", d.externalMemoryFd},
                           {"dma_buf", d.dmaBuf},
                           {"external_semaphore_fd", d.externalSemaphoreFd},
                           {"timeline_semaphore", d.timelineSemaphore},
                           {"timeline_semaphore_export", d.timelineSemaphoreExport},
                           {"cooperative_matrix_khr", d.cooperativeMatrixKhr},
                           {"cooperative_matrix_nv", d.cooperativeMatrixNv},
                           {"subgroup_size", d.subgroupSize},
                           {"shared_memory_bytes", d.sharedMemoryBytes},
                           {"max_storage_buffer_range", d.maxStorageBufferRange},
                           {"device_local_bytes", d.deviceLocalBytes},
                           {"timestamps", d.timestamps}});
        fmt::print("{}\n", jsonText(out));
        return;
    }
    if (devices.empty()) fmt::print("no Vulkan devices\n");
    for (const auto& d : devices) {
        fmt::print("{}: {} ({}), Vulkan {}, driver {} {}\n", d.index, d.name, d.type, d.apiVersionString, d.driverName,
                   d.driverInfo);
        fmt::print("   fp16 arithmetic {}, 16-bit storage {}, int8 arithmetic {}\n", yesNo(d.fp16Arithmetic),
                   yesNo(d.storage16Bit), yesNo(d.int8Arithmetic));
        fmt::print("   external memory fd {}, dma-buf {}, external semaphore fd {}\n", yesNo(d.externalMemoryFd),
                   yesNo(d.dmaBuf), yesNo(d.externalSemaphoreFd));
        fmt::print("   timeline semaphores {} (fd export {}), cooperative matrix KHR {} / NV {}\n",
                   yesNo(d.timelineSemaphore), yesNo(d.timelineSemaphoreExport), yesNo(d.cooperativeMatrixKhr),
                   yesNo(d.cooperativeMatrixNv));
        fmt::print("   subgroup {}, shared memory {} KiB, device-local memory {:.1f} GiB, timestamps {}, uuid {}\n",
                   d.subgroupSize, d.sharedMemoryBytes / 1024, d.deviceLocalBytes / 1073741824.0, yesNo(d.timestamps),
                   uuidString(d.deviceUuid));
    }
}

}  // namespace

void addDevicesCommand(CLI::App& app, GlobalOptions& g) {
    auto* cmd = app.add_subcommand("devices", "List Vulkan devices and the capabilities that matter to vkinfer");
    auto json = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json, "Print JSON");
    cmd->callback([json, &g] { printDevices(*json, g.device); });
}

}  // namespace vkinfer::cli
