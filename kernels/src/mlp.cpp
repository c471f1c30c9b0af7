#include "vitals/kernels/mlp.hpp"

#include <cmath>

#include "vitals/kernels/ops.hpp"
#include "vitals/profiler/record_function.hpp"

namespace vitals::kernels {
namespace {

// torch.nn.Linear's scale: values of order 1 / sqrt(fan_in) (here normal, not uniform).
Tensor init_parameter(Shape shape, std::int64_t fan_in, const MlpConfig& config, std::uint64_t seed) {
    Tensor host = Tensor::randn(std::move(shape), DType::f64, Device::cpu, seed);
    const double scale = 1.0 / std::sqrt(static_cast<double>(fan_in));
    double* values = host.data<double>();
    for (std::int64_t i = 0; i < host.numel(); ++i) values[i] *= scale;
    if (config.dtype == DType::f32) {
        std::vector<float> rounded(values, values + host.numel());
        host = Tensor::from_vector(host.shape(), rounded);
    }
    return host.to(config.device);
}

}  // namespace

Mlp::Mlp(const MlpConfig& c)
    : w1(init_parameter({c.hidden_features, c.in_features}, c.in_features, c, c.seed + 1)),
      b1(init_parameter({c.hidden_features}, c.in_features, c, c.seed + 2)),
      w2(init_parameter({c.out_features, c.hidden_features}, c.hidden_features, c, c.seed + 3)),
      b2(init_parameter({c.out_features}, c.hidden_features, c, c.seed + 4)),
      grad_w1(Tensor::zeros(w1.shape(), c.dtype, c.device)),
      grad_b1(Tensor::zeros(b1.shape(), c.dtype, c.device)),
      grad_w2(Tensor::zeros(w2.shape(), c.dtype, c.device)),
      grad_b2(Tensor::zeros(b2.shape(), c.dtype, c.device)) {}

Tensor Mlp::forward(const Tensor& x) {
    input_ = x;
    hidden_ = linear(x, w1, b1);
    activation_ = relu(hidden_);
    return linear(activation_, w2, b2);
}

// The backward pass of one forward operation, named as torch's autograd names it: the
// engine's evaluate_function scope around the node's own (e.g. AddmmBackward0).
#define VITALS_AUTOGRAD_NODE(node)                                                                       \
    const profiler::RecordFunction evaluate_##node("autograd::engine::evaluate_function: " #node,       \
                                                   profiler::Category::cpu_op);                          \
    const profiler::RecordFunction node_##node(#node, profiler::Category::cpu_op)

Tensor Mlp::backward(const Tensor& grad_output) {
    Tensor grad_activation, grad_hidden, grad_input;
    {  // y = a w2^T + b2: dw2 = dy^T a, db2 = column sums of dy, da = dy w2.
        VITALS_AUTOGRAD_NODE(AddmmBackward0);
        grad_w2 = matmul(grad_output, activation_, /*transpose_a=*/true);
        grad_b2 = sum_rows(grad_output);
        grad_activation = matmul(grad_output, w2);
    }
    {
        VITALS_AUTOGRAD_NODE(ReluBackward0);
        grad_hidden = relu_backward(grad_activation, hidden_);
    }
    {  // h = x w1^T + b1: likewise.
        VITALS_AUTOGRAD_NODE(AddmmBackward0);
        grad_w1 = matmul(grad_hidden, input_, /*transpose_a=*/true);
        grad_b1 = sum_rows(grad_hidden);
        grad_input = matmul(grad_hidden, w1);
    }
    return grad_input;
}

void Mlp::zero_grad() {
    for (Tensor* g : gradients()) g->zero_();
}

Sgd::Sgd(Mlp& model, double lr) : model_(&model), lr_(lr) {}

// torch.optim's profiler names: Optimizer.<method>#<class>.<method>.
void Sgd::step() {
    VITALS_RECORD_FUNCTION("Optimizer.step#SGD.step");
    const std::vector<Tensor*> params = model_->parameters();
    const std::vector<Tensor*> grads = model_->gradients();
    for (std::size_t i = 0; i < params.size(); ++i) sgd_step(*params[i], *grads[i], lr_);
}

void Sgd::zero_grad() {
    VITALS_RECORD_FUNCTION("Optimizer.zero_grad#SGD.zero_grad");
    model_->zero_grad();
}

Tensor train_step(Mlp& model, Sgd& optimizer, const Tensor& x, const Tensor& target) {
    const Tensor prediction = model.forward(x);
    Tensor loss = mse_loss(prediction, target);
    Tensor grad_prediction;
    {  // loss.backward() begins at the loss's own node
        VITALS_AUTOGRAD_NODE(MseLossBackward0);
        grad_prediction = mse_loss_backward(prediction, target);
    }
    model.backward(grad_prediction);
    optimizer.step();
    optimizer.zero_grad();
    return loss;
}

}  // namespace vitals::kernels
