// Vulkan -> CUDA zero copy: a CUDA kernel reads vkinfer's output in place, ordered after the
// inference by vkinfer's timeline semaphore, with no copy and no CPU wait in between.
//
//   example_cuda_zero_copy data/espcn_x2
//
// 1. Pick the CUDA device (0) and create the vkinfer Context on the Vulkan device with the
//    same UUID (cudaDeviceProp::uuid == VkPhysicalDeviceIDProperties::deviceUUID).
// 2. Submit ESPCN x2 on the bundled test input (Session::submit: returns at once).
// 3. Export the output buffer's memory (exportTensorMemory) and the session's timeline
//    semaphore (exportTimelineSemaphore) as opaque fds; import both into CUDA.
// 4. On a CUDA stream: wait for the semaphore to reach the submission's ticket value, then
//    run a kernel comparing the mapped output with the reference output (copied to the GPU):
//    |y - ref| <= 1e-4 * max|ref| + 1e-3 * |ref| per element.
// 5. Print "CUDA zero copy: N elements, M mismatches, max error E"; exit 0 only if M == 0.
//
// File descriptors: both exported fds are ours until CUDA imports them; a successful
// cudaImportExternalMemory / cudaImportExternalSemaphore transfers ownership to the CUDA
// driver (we must not close them then); after a failed import we close them ourselves.
//
// Plain CUDA runtime API, C++17; needs vkinfer and CUDA::cudart only (examples/CMakeLists.txt
// builds it where the CUDA toolkit is found).
#include <cuda_runtime.h>
#include <unistd.h>
#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(call)                                                                              \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            std::fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
            std::exit(1);                                                                             \
        }                                                                                             \
    } while (0)

bool report(const vkinfer::Status& s, const char* what) {
    if (s.ok()) return true;
    std::fprintf(stderr, "%s: %s\n", what, s.toString().c_str());
    return false;
}

std::string uuidString(const unsigned char* u) {
    std::string s;
    char buf[4];
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        std::snprintf(buf, sizeof(buf), "%02x", u[i]);
        s += buf;
    }
    return s;
}

// Counts elements outside |y - ref| <= atol + rtol * |ref| (NaN counts as a mismatch) and
// the largest |y - ref|. Non-negative floats order like their bit patterns as unsigned ints,
// so the maximum is kept with atomicMax on the bits.
__global__ void compareKernel(const float* y, const float* ref, unsigned long long n, float atol, float rtol,
                              unsigned long long* mismatches, unsigned int* maxErrorBits) {
    unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        float err = fabsf(y[i] - ref[i]);
        if (!(err <= atol + rtol * fabsf(ref[i]))) atomicAdd(mismatches, 1ull);
        if (!isnan(err)) atomicMax(maxErrorBits, __float_as_uint(err));
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s MODEL_DIR (with model.onnx and test_data_set_0)\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    auto model = vkinfer::Model::load(dir + "/model.onnx");
    if (!report(model.status(), "loading the model")) return 1;
    auto data = vkinfer::loadTestDataSet(dir + "/test_data_set_0", *model);
    if (!report(data.status(), "loading test data")) return 1;
    const vkinfer::Tensor& reference = data->outputs[0].tensor;
    if (reference.dtype() != vkinfer::DataType::Float32) {
        std::fprintf(stderr, "this example compares float32 outputs only\n");
        return 1;
    }

    // ---- 1. CUDA device and the Vulkan device with the same UUID ---------------------------
    int cudaDevices = 0;
    CHECK_CUDA(cudaGetDeviceCount(&cudaDevices));
    if (cudaDevices < 1) {
        std::fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    const int cudaDevice = 0;
    CHECK_CUDA(cudaSetDevice(cudaDevice));
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, cudaDevice));
    std::array<uint8_t, 16> uuid{};
    std::memcpy(uuid.data(), prop.uuid.bytes, 16);
    std::printf("CUDA device %d: %s, uuid %s\n", cudaDevice, prop.name, uuidString(uuid.data()).c_str());

    vkinfer::ContextOptions contextOptions;
    contextOptions.deviceUuid = uuid;  // the Vulkan device CUDA also sees
    auto context = vkinfer::Context::create(contextOptions);
    if (!report(context.status(), "creating the vkinfer context on the CUDA device's UUID")) return 1;
    vkinfer::InteropCapabilities caps = vkinfer::queryInteropCapabilities(*context);
    std::printf("Vulkan device: %s (export memory fd %s, timeline semaphore fd %s)\n", context->device().name.c_str(),
                caps.exportMemoryOpaqueFd ? "yes" : "no", caps.exportTimelineSemaphoreFd ? "yes" : "no");
    if (!caps.exportMemoryOpaqueFd || !caps.exportTimelineSemaphoreFd) {
        // The fallback where an export is missing: Session::wait on the host, then copies.
        std::fprintf(stderr, "this device cannot export memory and timeline semaphores as fds\n");
        return 1;
    }

    // ---- 2. Submit the inference ------------------------------------------------------------
    vkinfer::SessionOptions options;
    options.shareableIO = true;  // exportable input and output buffers
    auto session = vkinfer::Session::create(*context, *model, options);
    if (!report(session.status(), "creating the session")) return 1;
    vkinfer::InputShapes shapes;
    for (const auto& in : data->inputs) shapes.emplace_back(in.name, in.tensor.shape());
    if (!report(session->prepare(shapes), "preparing the session")) return 1;
    auto ticket = session->submit(data->inputs);  // returns at once; the GPU works
    if (!report(ticket.status(), "submitting")) return 1;
    std::printf("submitted: ticket %llu in frame slot %u\n", static_cast<unsigned long long>(ticket->value),
                ticket->frame);

    // ---- 3. Export the output memory of the ticket's frame slot and the timeline -----------
    const std::string outputName = model->outputs()[0].name;
    auto exported = vkinfer::exportTensorMemory(*session, outputName, ticket->frame);
    if (!report(exported.status(), "exporting the output memory")) return 1;
    auto semaphoreFd = vkinfer::exportTimelineSemaphore(*session);
    if (!report(semaphoreFd.status(), "exporting the timeline semaphore")) {
        close(exported->fd);
        return 1;
    }
    const unsigned long long elements = static_cast<unsigned long long>(reference.elementCount());
    if (exported->bytes != elements * sizeof(float)) {
        std::fprintf(stderr, "the output holds %llu bytes, the reference %llu\n",
                     static_cast<unsigned long long>(exported->bytes), elements * sizeof(float));
        close(exported->fd);
        close(*semaphoreFd);
        return 1;
    }

    // Memory: the whole allocation, dedicated as exported; then the tensor's range mapped.
    cudaExternalMemoryHandleDesc memoryDesc;
    std::memset(&memoryDesc, 0, sizeof(memoryDesc));
    memoryDesc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    memoryDesc.handle.fd = exported->fd;
    memoryDesc.size = exported->allocationSize;
    memoryDesc.flags = exported->dedicated ? cudaExternalMemoryDedicated : 0;
    cudaExternalMemory_t externalMemory = nullptr;
    cudaError_t imported = cudaImportExternalMemory(&externalMemory, &memoryDesc);
    if (imported != cudaSuccess) {
        std::fprintf(stderr, "cudaImportExternalMemory failed: %s\n", cudaGetErrorString(imported));
        close(exported->fd);  // not imported: still ours
        close(*semaphoreFd);
        return 1;
    }
    // exported->fd belongs to the CUDA driver now.
    cudaExternalMemoryBufferDesc bufferDesc;
    std::memset(&bufferDesc, 0, sizeof(bufferDesc));
    bufferDesc.offset = exported->offset;
    bufferDesc.size = exported->bytes;
    void* mapped = nullptr;
    CHECK_CUDA(cudaExternalMemoryGetMappedBuffer(&mapped, externalMemory, &bufferDesc));

    // Semaphore: vkinfer's timeline, signaled with each ticket's value.
    cudaExternalSemaphoreHandleDesc semaphoreDesc;
    std::memset(&semaphoreDesc, 0, sizeof(semaphoreDesc));
    semaphoreDesc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
    semaphoreDesc.handle.fd = *semaphoreFd;
    cudaExternalSemaphore_t externalSemaphore = nullptr;
    imported = cudaImportExternalSemaphore(&externalSemaphore, &semaphoreDesc);
    if (imported != cudaSuccess) {
        std::fprintf(stderr, "cudaImportExternalSemaphore failed: %s\n", cudaGetErrorString(imported));
        close(*semaphoreFd);  // not imported: still ours
        return 1;
    }
    // *semaphoreFd belongs to the CUDA driver now.

    // ---- 4. Wait for the ticket on the GPU, then compare in a kernel ------------------------
    cudaStream_t stream = nullptr;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaExternalSemaphoreWaitParams waitParams;
    std::memset(&waitParams, 0, sizeof(waitParams));
    waitParams.params.fence.value = ticket->value;
    CHECK_CUDA(cudaWaitExternalSemaphoresAsync(&externalSemaphore, &waitParams, 1, stream));

    float maxAbsRef = 0.0f;
    for (unsigned long long i = 0; i < elements; ++i) maxAbsRef = std::max(maxAbsRef, std::fabs(reference.as<float>()[i]));
    const float atol = 1e-4f * maxAbsRef, rtol = 1e-3f;

    float* deviceRef = nullptr;
    unsigned long long* deviceMismatches = nullptr;
    unsigned int* deviceMaxErrorBits = nullptr;
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&deviceRef), elements * sizeof(float)));
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&deviceMismatches), sizeof(unsigned long long)));
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&deviceMaxErrorBits), sizeof(unsigned int)));
    CHECK_CUDA(cudaMemcpyAsync(deviceRef, reference.data(), elements * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaMemsetAsync(deviceMismatches, 0, sizeof(unsigned long long), stream));
    CHECK_CUDA(cudaMemsetAsync(deviceMaxErrorBits, 0, sizeof(unsigned int), stream));
    const unsigned int threads = 256;
    const unsigned int blocks =
        static_cast<unsigned int>(std::min<unsigned long long>((elements + threads - 1) / threads, 4096ull));
    compareKernel<<<std::max(blocks, 1u), threads, 0, stream>>>(static_cast<const float*>(mapped), deviceRef, elements,
                                                                 atol, rtol, deviceMismatches, deviceMaxErrorBits);
    CHECK_CUDA(cudaGetLastError());
    unsigned long long mismatches = 0;
    unsigned int maxErrorBits = 0;
    CHECK_CUDA(cudaMemcpyAsync(&mismatches, deviceMismatches, sizeof(mismatches), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaMemcpyAsync(&maxErrorBits, deviceMaxErrorBits, sizeof(maxErrorBits), cudaMemcpyDeviceToHost, stream));
    // A copy of what CUDA saw, to check against Session::wait's own output below.
    std::vector<float> seen(elements);
    CHECK_CUDA(cudaMemcpyAsync(seen.data(), mapped, elements * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    float maxError = 0.0f;
    std::memcpy(&maxError, &maxErrorBits, sizeof(maxError));

    // The host's side of the same ticket: its outputs, through vkinfer's own readback.
    auto outputs = session->wait(*ticket);
    if (!report(outputs.status(), "waiting for the ticket")) return 1;
    const vkinfer::Tensor& own = (*outputs)[0].tensor;
    const bool identical = own.byteSize() == seen.size() * sizeof(float) &&
                           std::memcmp(own.data(), seen.data(), own.byteSize()) == 0;

    // ---- 5. Clean up: CUDA's imports first (they release the fds), then the session --------
    CHECK_CUDA(cudaFree(deviceRef));
    CHECK_CUDA(cudaFree(deviceMismatches));
    CHECK_CUDA(cudaFree(deviceMaxErrorBits));
    CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_CUDA(cudaFree(mapped));  // buffers mapped from external memory are freed with cudaFree
    CHECK_CUDA(cudaDestroyExternalMemory(externalMemory));
    CHECK_CUDA(cudaDestroyExternalSemaphore(externalSemaphore));

    std::printf("CUDA saw %s Session::wait's output\n", identical ? "exactly" : "something other than");
    std::printf("CUDA zero copy: %llu elements, %llu mismatches, max error %.3g\n", elements, mismatches,
                static_cast<double>(maxError));
    return mismatches == 0 && identical ? 0 : 1;
}
