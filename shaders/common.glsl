// Shared by every kernel: workgroup size and the fused activation come from
// specialization constants (ids 0-2 and 3-5, see src/ops/lower_context.h).
#extension GL_GOOGLE_include_directive : enable

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const uint ACT_KIND = 0;  // graph::ActKind
layout(constant_id = 4) const float ACT_ALPHA = 0.0;
layout(constant_id = 5) const float ACT_BETA = 0.0;

float activate(float x) {
    if (ACT_KIND == 1u) return max(x, 0.0);
    if (ACT_KIND == 2u) return min(max(x, ACT_ALPHA), ACT_BETA);  // ONNX Clip order
    if (ACT_KIND == 3u) return 1.0 / (1.0 + exp(-x));
    if (ACT_KIND == 4u) {  // tanh without inf/inf for large |x|
        float e = exp(-2.0 * abs(x));
        return sign(x) * (1.0 - e) / (1.0 + e);
    }
    if (ACT_KIND == 5u) return x >= 0.0 ? x : x * ACT_ALPHA;
    return x;
}
