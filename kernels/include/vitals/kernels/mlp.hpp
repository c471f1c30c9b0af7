// The tutorial's model: Linear(in, hidden) - ReLU - Linear(hidden, out), with an
// explicit backward pass and plain SGD, built from the kernel-set operations.
#pragma once

#include <cstdint>
#include <vector>

#include "vitals/kernels/tensor.hpp"

namespace vitals::kernels {

struct MlpConfig {
    std::int64_t in_features = 512;
    std::int64_t hidden_features = 1024;
    std::int64_t out_features = 512;
    DType dtype = DType::f32;
    Device device = Device::cpu;
    std::uint64_t seed = 0;
};

class Mlp {
public:
    explicit Mlp(const MlpConfig& config = {});

    // y = linear(relu(linear(x, w1, b1)), w2, b2). Keeps what backward needs.
    Tensor forward(const Tensor& x);
    // Accumulates parameter gradients for d(loss)/d(output) = grad_output, using the
    // values saved by the last forward. Returns d(loss)/d(input).
    Tensor backward(const Tensor& grad_output);
    void zero_grad();

    // w1 [hidden, in], b1 [hidden], w2 [out, hidden], b2 [out]; gradients likewise.
    std::vector<Tensor*> parameters() { return {&w1, &b1, &w2, &b2}; }
    std::vector<Tensor*> gradients() { return {&grad_w1, &grad_b1, &grad_w2, &grad_b2}; }

    Tensor w1, b1, w2, b2;
    Tensor grad_w1, grad_b1, grad_w2, grad_b2;

private:
    Tensor input_, hidden_, activation_;
};

// Plain stochastic gradient descent: param -= lr * grad.
class Sgd {
public:
    Sgd(Mlp& model, double lr);
    void step();
    void zero_grad();

private:
    Mlp* model_;
    double lr_;
};

// One training step as the tutorial writes it: forward, MSE loss, backward, SGD step,
// zero grad. Returns the loss (a 0-D tensor on the model's device; reading it syncs).
Tensor train_step(Mlp& model, Sgd& optimizer, const Tensor& x, const Tensor& target);

}  // namespace vitals::kernels
