// Every kernel-set operation on a CUDA device against the CPU result on the same
// inputs. Compiled always; each test skips with the reason where no device is usable.
#include <gtest/gtest.h>

#include <cmath>
#include <vitals/kernels/kernels.hpp>

#include "vitals/cuda_support.hpp"

namespace k = vitals::kernels;
using k::Device;
using k::DType;
using k::Tensor;

namespace {

class OnCuda : public ::testing::TestWithParam<DType> {
protected:
    void SetUp() override {
        const std::string reason = vitals::cuda_unavailable_reason();
        if (!reason.empty()) GTEST_SKIP() << reason;
    }
    DType dtype() const { return GetParam(); }
    Tensor randn(k::Shape shape, std::uint64_t seed) const { return Tensor::randn(std::move(shape), dtype(), Device::cpu, seed); }
};

std::vector<double> host_values(const Tensor& t) {
    const Tensor h = t.to(Device::cpu);
    if (h.dtype() == DType::f32) {
        const auto v = h.to_vector<float>();
        return {v.begin(), v.end()};
    }
    if (h.dtype() == DType::f64) return h.to_vector<double>();
    if (h.dtype() == DType::i64) {
        const auto v = h.to_vector<std::int64_t>();
        return {v.begin(), v.end()};
    }
    const auto v = h.to_vector<bool>();
    return {v.begin(), v.end()};
}

void expect_same(const Tensor& cuda, const Tensor& cpu, double rel) {
    ASSERT_EQ(cuda.device(), Device::cuda);
    ASSERT_EQ(cuda.shape(), cpu.shape());
    ASSERT_EQ(cuda.dtype(), cpu.dtype());
    const auto a = host_values(cuda), b = host_values(cpu);
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], rel * (1 + std::fabs(b[i]))) << "at " << i;
}

double tol(DType d) { return d == DType::f32 ? 1e-4 : 1e-11; }

}  // namespace

TEST_P(OnCuda, ProductsMatchTheCpu) {
    const Tensor a = randn({33, 17}, 1), b = randn({17, 9}, 2), bt = randn({9, 17}, 3), bias = randn({9}, 4);
    const Tensor ca = a.to(Device::cuda), cb = b.to(Device::cuda), cbt = bt.to(Device::cuda), cbias = bias.to(Device::cuda);
    expect_same(k::matmul(ca, cb), k::matmul(a, b), tol(dtype()));
    expect_same(k::matmul(ca, cbt, false, true), k::matmul(a, bt, false, true), tol(dtype()));
    expect_same(k::matmul(ca, ca, true, false), k::matmul(a, a, true, false), tol(dtype()));
    expect_same(k::linear(ca, cbt, cbias), k::linear(a, bt, bias), tol(dtype()));
    expect_same(k::sum_rows(ca), k::sum_rows(a), tol(dtype()));
}

TEST_P(OnCuda, ElementwiseMatchesTheCpu) {
    const Tensor x = randn({1000, 3}, 5), g = randn({1000, 3}, 6);
    const Tensor cx = x.to(Device::cuda), cg = g.to(Device::cuda);
    expect_same(k::relu(cx), k::relu(x), 0);
    expect_same(k::relu_backward(cg, cx), k::relu_backward(g, x), 0);
    for (DType mask : {DType::boolean, DType::f32, DType::f64}) {
        expect_same(k::gt(cx, 0.25, mask), k::gt(x, 0.25, mask), 0);
        expect_same(k::lt(cx, -0.5, mask), k::lt(x, -0.5, mask), 0);
    }
    expect_same(k::mse_loss(cx, cg), k::mse_loss(x, g), tol(dtype()));
    expect_same(k::mse_loss_backward(cx, cg), k::mse_loss_backward(x, g), tol(dtype()));
    Tensor p = x.to(Device::cpu), cp = x.to(Device::cuda);
    k::sgd_step(p, g, 0.1);
    k::sgd_step(cp, cg, 0.1);
    expect_same(cp, p, tol(dtype()));
}

TEST_P(OnCuda, NonzeroAndMaskedSelectMatchTheCpuExactly) {
    const Tensor x = randn({300, 7}, 7);
    const Tensor cx = x.to(Device::cuda);
    expect_same(k::nonzero(k::gt(cx, 0.5)), k::nonzero(k::gt(x, 0.5)), 0);
    expect_same(k::nonzero(k::gt(cx, 0.5, dtype())), k::nonzero(k::gt(x, 0.5, dtype())), 0);
    expect_same(k::nonzero(k::gt(cx, 100.0)), k::nonzero(k::gt(x, 100.0)), 0);    // none
    expect_same(k::nonzero(k::gt(cx, -100.0)), k::nonzero(k::gt(x, -100.0)), 0);  // all
    expect_same(k::masked_select(cx, k::gt(cx, 0.0)), k::masked_select(x, k::gt(x, 0.0)), 0);
}

TEST_P(OnCuda, TrainingAndMaskIndicesMatchTheCpu) {
    k::Mlp cpu_model({.in_features = 16, .hidden_features = 32, .out_features = 8, .dtype = dtype()});
    k::Mlp gpu_model({.in_features = 16, .hidden_features = 32, .out_features = 8, .dtype = dtype(), .device = Device::cuda});
    k::Sgd cpu_sgd(cpu_model, 0.05), gpu_sgd(gpu_model, 0.05);
    const Tensor x = randn({32, 16}, 8), t = randn({32, 8}, 9);
    const Tensor cx = x.to(Device::cuda), ct = t.to(Device::cuda);
    for (int i = 0; i < 5; ++i) {
        expect_same(k::train_step(gpu_model, gpu_sgd, cx, ct), k::train_step(cpu_model, cpu_sgd, x, t), 1e-3);
    }
    const k::MaskIndices gpu(50000, Device::cuda, 0.2), cpu(50000, Device::cpu, 0.2);
    EXPECT_EQ(host_values(gpu.after()), host_values(cpu.after()));
    EXPECT_EQ(host_values(gpu.before()), host_values(cpu.before()));
}

INSTANTIATE_TEST_SUITE_P(FloatAndDouble, OnCuda, ::testing::Values(DType::f32, DType::f64),
                         [](const auto& info) { return std::string(k::dtype_short_name(info.param)); });
