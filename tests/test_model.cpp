// The MLP (gradients against finite differences, training lowers the loss) and the
// MASK INDICES workload (both variants find the same indices).
#include <gtest/gtest.h>

#include <cmath>
#include <vitals/kernels/kernels.hpp>

namespace k = vitals::kernels;
using k::Device;
using k::DType;
using k::Tensor;

namespace {
double loss_of(k::Mlp& model, const Tensor& x, const Tensor& target) {
    return k::mse_loss(model.forward(x), target).to_vector<double>()[0];
}
}  // namespace

TEST(Mlp, ShapesFollowTheTutorial) {
    k::Mlp model;
    EXPECT_EQ(model.w1.shape(), (k::Shape{1024, 512}));
    EXPECT_EQ(model.w2.shape(), (k::Shape{512, 1024}));
    const Tensor y = model.forward(Tensor::randn({32, 512}, DType::f32, Device::cpu, 1));
    EXPECT_EQ(y.shape(), (k::Shape{32, 512}));
}

TEST(Mlp, GradientsMatchFiniteDifferencesInDouble) {
    k::Mlp model({.in_features = 6, .hidden_features = 5, .out_features = 4, .dtype = DType::f64});
    const Tensor x = Tensor::randn({3, 6}, DType::f64, Device::cpu, 11);
    const Tensor target = Tensor::randn({3, 4}, DType::f64, Device::cpu, 12);
    const Tensor prediction = model.forward(x);
    model.backward(k::mse_loss_backward(prediction, target));
    const std::vector<Tensor*> params = model.parameters();
    const std::vector<Tensor*> grads = model.gradients();
    constexpr double eps = 1e-6;
    int checked = 0;
    for (std::size_t p = 0; p < params.size(); ++p) {
        double* values = params[p]->data<double>();
        const std::vector<double> analytic = grads[p]->to_vector<double>();
        for (std::int64_t i = 0; i < params[p]->numel(); ++i) {
            const double saved = values[i];
            values[i] = saved + eps;
            const double up = loss_of(model, x, target);
            values[i] = saved - eps;
            const double down = loss_of(model, x, target);
            values[i] = saved;
            const double numeric = (up - down) / (2 * eps);
            ASSERT_NEAR(analytic[static_cast<std::size_t>(i)], numeric, 1e-7 * (1 + std::fabs(numeric)))
                << "parameter " << p << " element " << i;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 5 * 6 + 5 + 4 * 5 + 4);
}

TEST(Mlp, FiftySgdStepsLowerTheLoss) {
    for (DType dtype : {DType::f32, DType::f64}) {
        k::Mlp model({.in_features = 16, .hidden_features = 32, .out_features = 8, .dtype = dtype});
        k::Sgd sgd(model, 0.05);
        const Tensor x = Tensor::randn({32, 16}, dtype, Device::cpu, 3);
        const Tensor target = Tensor::randn({32, 8}, dtype, Device::cpu, 4);
        const auto read = [&](const Tensor& loss) {
            return dtype == DType::f32 ? double(loss.to_vector<float>()[0]) : loss.to_vector<double>()[0];
        };
        const double first = read(k::train_step(model, sgd, x, target));
        double last = first;
        for (int step = 1; step < 50; ++step) last = read(k::train_step(model, sgd, x, target));
        EXPECT_LT(last, 0.8 * first) << k::dtype_name(dtype);
        for (Tensor* g : model.gradients()) {  // zero_grad ran last
            for (double v : (dtype == DType::f32 ? std::vector<double>() : g->to_vector<double>())) EXPECT_EQ(v, 0.0);
        }
    }
}

TEST(MaskIndices, BeforeAndAfterFindTheSameIndices) {
    const k::MaskIndices workload(100000, Device::cpu, 0.1, 5);
    const Tensor before = workload.before();
    const Tensor after = workload.after();
    EXPECT_EQ(before.device(), Device::cpu);
    EXPECT_EQ(before.to_vector<std::int64_t>(), after.to_vector<std::int64_t>());
    // About 10% of standard normal values lie above the threshold.
    EXPECT_NEAR(static_cast<double>(after.size(0)) / 100000.0, 0.1, 0.01);
    EXPECT_NEAR(k::density_threshold(0.5), 0.0, 1e-9);
    EXPECT_NEAR(k::density_threshold(0.1), 1.2815515655446004, 1e-9);
    EXPECT_THROW(k::MaskIndices(10, Device::cpu, 1.5), std::invalid_argument);
}
