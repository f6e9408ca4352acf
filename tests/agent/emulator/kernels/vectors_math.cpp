// Vector types and device math, compiled once as HIP and once as CUDA (the API header is included
// by the compiler, as hipcc and nvcc do): sizes and alignments, make_*, HIP's vector operators,
// the math functions and intrinsics kernels call, min/max overloads, bit tricks, conversions.
#include <cstdint>
#include <vector>

#include "check.h"

#if defined(__HIPCC__)
#define gpuMalloc hipMalloc
#define gpuMemcpy hipMemcpy
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuGetLastError hipGetLastError
#else
#define gpuMalloc cudaMalloc
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuGetLastError cudaGetLastError
#endif

static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4");
static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "int4");
static_assert(sizeof(uint2) == 8 && alignof(uint2) == 8, "uint2");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2");
static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4, "uchar4");
static_assert(sizeof(short2) == 4 && alignof(short2) == 4, "short2");
static_assert(sizeof(dim3) == 12, "dim3");

__device__ __forceinline__ float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

__global__ void vectors(const float4* in, float4* out, int4* ints, double2* doubles) {
    const int i = threadIdx.x;
    float4 v = in[i];
#if defined(__HIPCC__)
    float4 w = v * 2.0f + float4(1.0f, 2.0f, 3.0f, 4.0f);  // HIP's operators and constructors
    w -= v;
    out[i] = w;
#else
    float4 w = {v.x * 2 + 1, v.y * 2 + 2, v.z * 2 + 3, v.w * 2 + 4};  // CUDA's aggregates
    out[i] = make_float4(w.x - v.x, w.y - v.y, w.z - v.z, w.w - v.w);
#endif
    ints[i] = make_int4(i, -i, (int)dot(v, v), __float_as_int(v.x));
    doubles[i] = make_double2(v.x * 0.5, (double)__int_as_float(__float_as_int(v.y)));
}

constexpr int kMath = 40;

__global__ void math(const float* x, float* out) {
    const float v = x[threadIdx.x];
    float* o = out + threadIdx.x * kMath;
    const float a = fabsf(v) + 0.5f;
    o[0] = expf(v);
    o[1] = __expf(v);
    o[2] = exp2f(v);
    o[3] = logf(a);
    o[4] = __logf(a);
    o[5] = log2f(a);
    o[6] = sqrtf(a);
    o[7] = rsqrtf(a);
    o[8] = tanhf(v);
    o[9] = __fdividef(v, a);
    o[10] = __saturatef(v);
    o[11] = fmaxf(v, 0.25f);
    o[12] = fminf(v, 0.25f);
    o[13] = max(v, 0.5f);
    o[14] = (float)min((int)(v * 10), 3);
    o[15] = (float)max((int)threadIdx.x, 2u);  // mixed signedness
    o[16] = fmaf(v, 2.0f, 1.0f);
    o[17] = sinf(v) + cosf(v);
    float s, c;
    sincosf(v, &s, &c);
    o[18] = s * c;
    o[19] = __powf(a, 1.5f);
    o[20] = erff(v);
    o[21] = (float)__float2int_rn(v * 3.5f);
    o[22] = (float)__float2int_rz(v * 3.5f);
    o[23] = (float)__popc(0xF0F0u + threadIdx.x);
    o[24] = (float)__clz((int)threadIdx.x + 1);
    o[25] = (float)__ffs((int)threadIdx.x + 8);
    o[26] = __int_as_float(__float_as_int(v));
    o[27] = (float)(__brev(1u) >> 31);
    o[28] = isnan(v / 0.0f * 0.0f) ? 1.0f : 0.0f;
    o[29] = isinf(1.0f / (v - v)) ? 1.0f : 0.0f;
    o[30] = __ldg(&x[threadIdx.x]);
    o[31] = (float)__popcll(0xFFFFFFFFFFull);
    o[32] = copysignf(1.0f, v);
    o[33] = floorf(v) + ceilf(v) + truncf(v) + roundf(v);
    o[34] = normcdff(v);
    o[35] = (float)__umulhi(0x80000000u, 6u);
    o[36] = (float)__clzll(1ll);
    o[37] = __frsqrt_rn(4.0f);
    o[38] = (float)abs(-3) + fabs(-0.5);
    o[39] = exp10f(1.0f);
}

int main() {
    const int n = 8;
    std::vector<float4> in(n);
    for (int i = 0; i < n; ++i) in[i] = make_float4(i, i + 0.5f, -i, 1.0f);
    float4 *d_in, *d_out;
    int4* d_ints;
    double2* d_doubles;
    gpuMalloc(&d_in, n * sizeof(float4));
    gpuMalloc(&d_out, n * sizeof(float4));
    gpuMalloc(&d_ints, n * sizeof(int4));
    gpuMalloc(&d_doubles, n * sizeof(double2));
#if defined(__HIPCC__)
    hipMemcpy(d_in, in.data(), n * sizeof(float4), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(vectors, dim3(1), dim3(n), 0, 0, d_in, d_out, d_ints, d_doubles);
#else
    cudaMemcpy(d_in, in.data(), n * sizeof(float4), cudaMemcpyHostToDevice);
    vectors<<<1, n>>>(d_in, d_out, d_ints, d_doubles);
#endif
    CHECK_EQ(gpuGetLastError(), 0);
    std::vector<float4> out(n);
    std::vector<int4> ints(n);
    std::vector<double2> doubles(n);
    gpuMemcpy(out.data(), d_out, n * sizeof(float4), gpuMemcpyDeviceToHost);
    gpuMemcpy(ints.data(), d_ints, n * sizeof(int4), gpuMemcpyDeviceToHost);
    gpuMemcpy(doubles.data(), d_doubles, n * sizeof(double2), gpuMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        const float4 v = in[i];
        CHECK_EQ(out[i].x, v.x + 1);
        CHECK_EQ(out[i].y, v.y + 2);
        CHECK_EQ(out[i].z, v.z + 3);
        CHECK_EQ(out[i].w, v.w + 4);
        CHECK_EQ(ints[i].x, i);
        CHECK_EQ(ints[i].y, -i);
        CHECK_EQ(ints[i].z, (int)(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w));
        CHECK_EQ(doubles[i].x, v.x * 0.5);
        CHECK_EQ(doubles[i].y, (double)v.y);
    }

    const int m = 6;
    const float xs[m] = {-1.5f, -0.25f, 0.0f, 0.3f, 1.0f, 2.75f};
    float *d_x, *d_math;
    gpuMalloc(&d_x, sizeof(xs));
    gpuMalloc(&d_math, m * kMath * sizeof(float));
#if defined(__HIPCC__)
    hipMemcpy(d_x, xs, sizeof(xs), hipMemcpyHostToDevice);
    hipLaunchKernelGGL(math, dim3(1), dim3(m), 0, 0, d_x, d_math);
#else
    cudaMemcpy(d_x, xs, sizeof(xs), cudaMemcpyHostToDevice);
    math<<<1, m>>>(d_x, d_math);
#endif
    std::vector<float> r(m * kMath);
    gpuMemcpy(r.data(), d_math, r.size() * sizeof(float), gpuMemcpyDeviceToHost);
    for (int t = 0; t < m; ++t) {
        const double v = xs[t], a = std::fabs(v) + 0.5;
        const float* o = &r[t * kMath];
        CHECK_NEAR(o[0], std::exp(v), 1e-6);
        CHECK_NEAR(o[1], std::exp(v), 1e-6);
        CHECK_NEAR(o[2], std::exp2(v), 1e-6);
        CHECK_NEAR(o[3], std::log(a), 1e-6);
        CHECK_NEAR(o[4], std::log(a), 1e-6);
        CHECK_NEAR(o[5], std::log2(a), 1e-6);
        CHECK_NEAR(o[6], std::sqrt(a), 1e-6);
        CHECK_NEAR(o[7], 1 / std::sqrt(a), 1e-6);
        CHECK_NEAR(o[8], std::tanh(v), 1e-6);
        CHECK_NEAR(o[9], v / a, 1e-6);
        CHECK_NEAR(o[10], v < 0 ? 0 : (v > 1 ? 1 : v), 0);
        CHECK_NEAR(o[11], std::fmax(v, 0.25), 0);
        CHECK_NEAR(o[12], std::fmin(v, 0.25), 0);
        CHECK_NEAR(o[13], std::fmax(v, 0.5), 0);
        CHECK_NEAR(o[14], std::min((int)(xs[t] * 10), 3), 0);
        CHECK_NEAR(o[15], std::max(t, 2), 0);
        CHECK_NEAR(o[16], v * 2 + 1, 1e-6);
        CHECK_NEAR(o[17], std::sin(v) + std::cos(v), 1e-6);
        CHECK_NEAR(o[18], std::sin(v) * std::cos(v), 1e-6);
        CHECK_NEAR(o[19], std::pow(a, 1.5), 1e-6);
        CHECK_NEAR(o[20], std::erf(v), 1e-6);
        CHECK_NEAR(o[21], std::nearbyint(xs[t] * 3.5f), 0);
        CHECK_NEAR(o[22], std::trunc(xs[t] * 3.5f), 0);
        CHECK_NEAR(o[23], __builtin_popcount(0xF0F0u + t), 0);
        CHECK_NEAR(o[24], __builtin_clz(t + 1), 0);
        CHECK_NEAR(o[25], __builtin_ffs(t + 8), 0);
        CHECK_NEAR(o[26], v, 0);
        CHECK_NEAR(o[27], 1, 0);
        CHECK_NEAR(o[28], 1, 0);
        CHECK_NEAR(o[29], 1, 0);
        CHECK_NEAR(o[30], v, 0);
        CHECK_NEAR(o[31], 40, 0);
        CHECK_NEAR(o[32], v < 0 || std::signbit(v) ? -1 : 1, 0);
        CHECK_NEAR(o[33], std::floor(v) + std::ceil(v) + std::trunc(v) + std::round(v), 0);
        CHECK_NEAR(o[34], 0.5 * std::erfc(-v / std::sqrt(2.0)), 1e-6);
        CHECK_NEAR(o[35], 3, 0);
        CHECK_NEAR(o[36], 63, 0);
        CHECK_NEAR(o[37], 0.5, 0);
        CHECK_NEAR(o[38], 3.5, 0);
        CHECK_NEAR(o[39], 10, 1e-6);
    }
    return finish();
}
