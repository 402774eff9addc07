// vkinfer.devices(), vkinfer.DeviceInfo and vkinfer.Context.
#include <fmt/format.h>

#include "binding.h"

namespace vkinfer::python {

namespace {

py::dict memoryDict(const DeviceMemoryBytes& b) {
    py::dict d;
    d["weights"] = b.weights;
    d["arena"] = b.arena;
    d["io"] = b.io;
    d["staging"] = b.staging;
    d["other"] = b.other;
    d["total"] = b.total();
    return d;
}

}  // namespace

Context makeContext(py::object device, bool validate) {
    ContextOptions o;
    if (!device.is_none()) {
        if (py::isinstance<py::bool_>(device) || !py::isinstance<py::int_>(device))
            throw py::type_error("device: expected a device index (int) from vkinfer.devices(), or None");
        const int64_t index = device.cast<int64_t>();
        if (index < 0 || index > std::numeric_limits<int>::max())
            throw py::value_error(fmt::format("device {}: expected an index from vkinfer.devices() (0 or more)", index));
        o.deviceIndex = static_cast<int>(index);
    }
    o.validate = validate;
    py::gil_scoped_release release;
    return unwrap(Context::create(o));
}

void bindContext(py::module_& m) {
#define FIELD(name, member, doc) .def_readonly(name, &DeviceInfo::member, doc)
    py::class_<DeviceInfo>(m, "DeviceInfo", "A Vulkan physical device and what it offers inference and integration.")
        FIELD("index", index, "Index as vkinfer.devices() lists it (Context(device=index)).")
        FIELD("name", name, "")
        FIELD("type", type, "'discrete GPU', 'integrated GPU', 'CPU', ...")
        FIELD("driver_name", driverName, "")
        FIELD("driver_info", driverInfo, "")
        FIELD("api_version", apiVersionString, "Vulkan version, e.g. '1.3.255'.")
        FIELD("vendor_id", vendorId, "")
        FIELD("device_id", deviceId, "")
        FIELD("fp16_arithmetic", fp16Arithmetic, "shaderFloat16")
        FIELD("storage_16bit", storage16Bit, "storageBuffer16BitAccess (needed for precision='fp16')")
        FIELD("int8_arithmetic", int8Arithmetic, "")
        FIELD("int64_arithmetic", int64Arithmetic, "")
        FIELD("external_memory_fd", externalMemoryFd, "")
        FIELD("dma_buf", dmaBuf, "")
        FIELD("external_semaphore_fd", externalSemaphoreFd, "")
        FIELD("timeline_semaphore", timelineSemaphore, "")
        FIELD("cooperative_matrix", cooperativeMatrix16x16x16,
              "16x16x16 float16 cooperative matrices (tensor cores), KHR or NV.")
        FIELD("timestamps", timestamps, "The compute queue supports timestamp queries (GPU times).")
        FIELD("subgroup_size", subgroupSize, "")
        FIELD("shared_memory_bytes", sharedMemoryBytes, "")
        FIELD("max_storage_buffer_range", maxStorageBufferRange, "")
        FIELD("device_local_bytes", deviceLocalBytes, "")
        .def_property_readonly("uuid", [](const DeviceInfo& d) {
            return py::bytes(reinterpret_cast<const char*>(d.deviceUuid.data()), d.deviceUuid.size());
        }, "VkPhysicalDeviceIDProperties::deviceUUID (16 bytes).")
        .def("__repr__", [](const DeviceInfo& d) {
            return fmt::format("<vkinfer.DeviceInfo {}: '{}' ({}, Vulkan {}, {})>", d.index, d.name, d.type,
                               d.apiVersionString, d.driverName);
        });
#undef FIELD

    m.def("devices", [] {
        py::gil_scoped_release release;
        return unwrap(listDevices());
    }, "The Vulkan devices, in loader order (DeviceInfo list).");

    py::class_<Context>(m, "Context", R"(A Vulkan device with its queue and pipeline cache, shared by the sessions made on it.

Context(device=None, validate=False): device is an index from vkinfer.devices() (None: the first
discrete GPU, else the first integrated GPU, else the first device); validate enables the Khronos
validation layer with synchronization validation, after which any message it reports fails the
next call (ValidationError). VKINFER_VALIDATE=1 in the environment does the same.)")
        .def(py::init(&makeContext), py::arg("device") = py::none(), py::arg("validate") = false)
        .def_property_readonly("device", &Context::device, "The DeviceInfo of its device.")
        .def_property_readonly("validation_enabled", &Context::validationEnabled)
        .def_property_readonly("device_lost", &Context::deviceLost,
                               "True once the device was lost: create a new Context to go on.")
        .def("take_validation_messages", &Context::takeValidationMessages,
             "The validation layer's messages since the last call (empty without validation).")
        .def("memory_stats", [](const Context& c) {
            const MemoryStats s = c.memoryStats();
            py::dict d;
            d["current"] = memoryDict(s.current);
            d["peak"] = memoryDict(s.peak);
            d["peak_total"] = s.peakTotal;
            return d;
        }, "Device memory of every session on this context in bytes: current and peak, per kind.")
        .def("reset_peak_memory", &Context::resetPeakMemory)
        .def("__repr__", [](const Context& c) {
            return fmt::format("<vkinfer.Context on '{}'{}>", c.device().name, c.validationEnabled() ? ", validated" : "");
        });
}

}  // namespace vkinfer::python
