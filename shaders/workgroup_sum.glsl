// The sum of `v` over the workgroup (a power-of-two size along x), returned to every
// invocation: a shared-memory tree. Every invocation must call it (barriers).
shared float partial[gl_WorkGroupSize.x];

float workgroupSum(float v) {
    uint lid = gl_LocalInvocationID.x;
    partial[lid] = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (lid < s) partial[lid] += partial[lid + s];
        barrier();
    }
    float r = partial[0];
    barrier();
    return r;
}
