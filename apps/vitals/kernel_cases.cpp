// The cases of the `vitals` executable: the kernel set at the tutorial's shapes, on the
// CPU always and on CUDA where a device is usable (listed as skipped, with the reason,
// elsewhere). Names are op/shape/device-dtype; in Compare tables rows are shapes and
// columns are device and dtype.
#include <fmt/format.h>

#include <memory>
#include <vitals/kernels/kernels.hpp>

#include "vitals/case.hpp"
#include "vitals/cuda_support.hpp"

namespace {

namespace k = vitals::kernels;
using k::Device;
using k::DType;
using k::Tensor;

constexpr Device kDevices[] = {Device::cpu, Device::cuda};
constexpr DType kFloatTypes[] = {DType::f32, DType::f64};

std::string column(Device device, std::string_view variant) { return fmt::format("{} {}", k::device_name(device), variant); }

// Why a case on `device` cannot run here; "" when it can.
std::string device_skip_reason(Device device) {
    return device == Device::cuda ? vitals::cuda_unavailable_reason() : std::string();
}

// A case on `device`, skipped (and marked so by `vitals list`) where the device is
// unusable: Case::timer() asks skip_reason before the factory runs.
vitals::Case device_case(Device device, std::string name, std::function<vitals::Timer()> make) {
    return {.name = std::move(name), .make_timer = std::move(make), .skip_reason = [device] { return device_skip_reason(device); }};
}

// The same for a family with a "device" axis.
std::string family_skip_reason(const vitals::AxisValues& at);

// A Timer over `body`, which owns its inputs, stating the work of one call; device work
// is timed on the ops' stream.
template <class Body>
vitals::Timer make_timer(Device device, Body body, std::string stmt, std::string label, std::string sub_label,
                         std::string description, const vitals::WorkPerCall& work) {
    vitals::TimerOptions options{
        .stmt = vitals::Code(std::move(body), std::move(stmt)),
        .label = std::move(label),
        .sub_label = std::move(sub_label),
        .description = std::move(description),
        .bytes_per_call = work.bytes,
        .flops_per_call = work.flops,
        .items_per_call = work.items,
        .working_set_bytes = work.working_set,
        .f64_flops = work.f64,
    };
    if (device == Device::cuda) options.cuda_stream = k::current_stream();
    return vitals::Timer(std::move(options));
}

double size_of(DType dtype) { return static_cast<double>(k::element_size(dtype)); }

// An m x k by k x n product (plus a bias of n when `bias`): 2mkn flops; its operands
// read and its result written once.
vitals::WorkPerCall product_work(double m, double k, double n, DType dtype, bool bias) {
    const double bytes = (m * k + k * n + m * n + (bias ? n : 0)) * size_of(dtype);
    return {.bytes = bytes, .flops = 2 * m * k * n + (bias ? m * n : 0), .working_set = bytes, .f64 = dtype == DType::f64};
}

// An elementwise pass: `elements` read in one dtype and written in another.
vitals::WorkPerCall elementwise_work(double elements, DType in, DType out) {
    return {.bytes = elements * (size_of(in) + size_of(out)), .items = elements};
}

// nonzero of a bool mask of `elements` with a share `density` set: the mask read, and
// one int64 index written per hit.
vitals::WorkPerCall nonzero_work(double elements, double density) {
    return {.bytes = elements + elements * density * 8, .items = elements};
}

// The tutorial's MLP (512-1024-512, ReLU between) on a batch of 32: the forward's two
// products, and for a training step also the backward (two products per layer: the
// gradients of input and weight) and the SGD update (2 flops per parameter); bytes are
// the parameters and activations read or written, each counted once per pass.
vitals::WorkPerCall mlp_work(DType dtype, bool train) {
    const double batch = 32, in = 512, hidden = 1024, out = 512;
    const double parameters = in * hidden + hidden + hidden * out + out;
    const double activations = batch * (in + 2 * hidden + out);
    const double forward_flops = 2 * batch * (in * hidden + hidden * out) + batch * (hidden + out);
    const double flops = train ? 3 * forward_flops + 2 * parameters : forward_flops;
    const double bytes = (train ? 4 * parameters + 3 * activations : parameters + activations) * size_of(dtype);
    return {.bytes = bytes, .flops = flops, .working_set = bytes, .f64 = dtype == DType::f64};
}

// The case study: before, x > t as a double mask (f64 in, f64 out), copied to the host,
// then nonzero over the double mask; after, a bool mask of float data and nonzero over it.
vitals::WorkPerCall mask_indices_work(std::int64_t n, double density, bool before) {
    const double elements = static_cast<double>(n), indices = elements * density * 8;
    const double bytes = before ? elements * (8 + 8) + elements * (8 + 8) + elements * 8 + indices
                                : elements * (4 + 1) + elements * 1 + indices;
    // The linear pass before it: [128, 500] through Linear(500, 10), in float.
    const vitals::WorkPerCall linear = product_work(128, 500, 10, DType::f32, true);
    return {.bytes = bytes + linear.bytes, .items = elements};  // its flops are too few to count
}

// "1M" for 1 << 20, "16M" for 16 << 20.
std::string millions(std::int64_t n) { return fmt::format("{}M", n >> 20); }

// The axes' values by name: "cpu" / "cuda", "f32" / "f64"; std::invalid_argument else.
Device device_named(const std::string& name) {
    for (const Device d : kDevices) {
        if (k::device_name(d) == name) return d;
    }
    throw std::invalid_argument(fmt::format("device '{}' is none of cpu, cuda", name));
}
std::string family_skip_reason(const vitals::AxisValues& at) {
    try {
        return device_skip_reason(device_named(at["device"]));
    } catch (const std::invalid_argument&) {
        return "";  // an unknown device is the factory's error to report, when the case runs
    }
}
DType float_type_named(const std::string& name) {
    for (const DType t : kFloatTypes) {
        if (k::dtype_short_name(t) == name) return t;
    }
    throw std::invalid_argument(fmt::format("dtype '{}' is none of f32, f64", name));
}
// A size axis value: at least 1.
std::int64_t positive(const vitals::AxisValues& at, const char* axis) {
    const std::int64_t n = at.integer(axis);
    if (n < 1) throw std::invalid_argument(fmt::format("axis {} must be at least 1, got {}", axis, n));
    return n;
}

// n x n products over the device, n and dtype axes: `vitals run --axis n=256,2048`.
VITALS_CASE_FAMILY(matmul_family) {
    return {
        .name = "matmul",
        .axes = {{"device", {"cpu", "cuda"}}, {"n", {"128", "512", "1024"}}, {"dtype", {"f32", "f64"}}},
        .make_timer =
            [](const vitals::AxisValues& at) {
                const Device device = device_named(at["device"]);
                const DType dtype = float_type_named(at["dtype"]);
                const std::int64_t n = positive(at, "n");
                auto x = std::make_shared<Tensor>(Tensor::randn({n, n}, dtype, device, 1));
                auto y = std::make_shared<Tensor>(Tensor::randn({n, n}, dtype, device, 2));
                return make_timer(
                    device, [x, y] { vitals::do_not_optimize(k::matmul(*x, *y)); }, "matmul(x, y)", "x @ y",
                    fmt::format("{0}x{0}", n), column(device, k::dtype_short_name(dtype)),
                    product_work(static_cast<double>(n), static_cast<double>(n), static_cast<double>(n), dtype, false));
            },
        .name_of = [](const vitals::AxisValues& at) { return fmt::format("matmul/{0}x{0}/{1}-{2}", at["n"], at["device"], at["dtype"]); },
        .skip_reason = family_skip_reason,
    };
}

VITALS_CASES(layer_cases) {
    std::vector<vitals::Case> cases;
    for (Device device : kDevices) {
        for (DType dtype : kFloatTypes) {
            const std::string where = fmt::format("{}-{}", k::device_name(device), k::dtype_short_name(dtype));
            const std::string col = column(device, k::dtype_short_name(dtype));
            cases.push_back(device_case(device, "linear/32x512/" + where, [=] {
                                 auto x = std::make_shared<Tensor>(Tensor::randn({32, 512}, dtype, device, 1));
                                 auto w = std::make_shared<Tensor>(Tensor::randn({1024, 512}, dtype, device, 2));
                                 auto b = std::make_shared<Tensor>(Tensor::randn({1024}, dtype, device, 3));
                                 return make_timer(
                                     device, [x, w, b] { vitals::do_not_optimize(k::linear(*x, *w, *b)); },
                                     "linear(x, w, b)", "Linear(512, 1024)", "32x512", col,
                                     product_work(32, 512, 1024, dtype, true));
                             }));
            cases.push_back(device_case(device, "relu/32x1024/" + where, [=] {
                                 auto x = std::make_shared<Tensor>(Tensor::randn({32, 1024}, dtype, device, 1));
                                 return make_timer(
                                     device, [x] { vitals::do_not_optimize(k::relu(*x)); }, "relu(x)", "relu",
                                     "32x1024", col, elementwise_work(32 * 1024, dtype, dtype));
                             }));
        }
    }
    return cases;
}

VITALS_CASES(mask_cases) {
    std::vector<vitals::Case> cases;
    for (Device device : kDevices) {
        for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{16} << 20}) {
            for (int percent : {10, 50}) {
                const std::string shape = fmt::format("{}-{}pct", millions(n), percent);
                const std::string sub_label = fmt::format("{} at {}%", millions(n), percent);
                // x > t as a bool mask of float data, and as float and double masks of
                // float and double data: the tutorial's "mask held in double".
                for (DType mask_dtype : {DType::boolean, DType::f32, DType::f64}) {
                    const DType data_dtype = mask_dtype == DType::f64 ? DType::f64 : DType::f32;
                    cases.push_back(device_case(
                        device, fmt::format("mask/{}/{}-{}", shape, k::device_name(device), k::dtype_short_name(mask_dtype)), [=] {
                             auto x = std::make_shared<Tensor>(Tensor::randn({n}, data_dtype, device, 0));
                             const double threshold = k::density_threshold(percent / 100.0);
                             return make_timer(
                                 device, [x, threshold, mask_dtype] { vitals::do_not_optimize(k::gt(*x, threshold, mask_dtype)); },
                                 "gt(x, t)", "mask: x > t", sub_label, column(device, k::dtype_short_name(mask_dtype)),
                                 elementwise_work(static_cast<double>(n), data_dtype, mask_dtype));
                         }));
                }
            }
        }
    }
    return cases;
}

// nonzero of a bool mask over the device, n and density (percent of elements set) axes.
VITALS_CASE_FAMILY(nonzero_family) {
    return {
        .name = "nonzero",
        .axes = {{"device", {"cpu", "cuda"}}, {"n", {"1M", "16M"}}, {"density", {"10", "50"}}},
        .make_timer =
            [](const vitals::AxisValues& at) {
                const Device device = device_named(at["device"]);
                const std::int64_t n = positive(at, "n"), percent = at.integer("density");
                if (percent > 100) throw std::invalid_argument(fmt::format("axis density is a percentage, got {}", percent));
                const Tensor x = Tensor::randn({n}, DType::f32, device, 0);
                auto mask = std::make_shared<Tensor>(k::gt(x, k::density_threshold(static_cast<double>(percent) / 100.0)));
                return make_timer(
                    device, [mask] { vitals::do_not_optimize(k::nonzero(*mask)); }, "nonzero(mask)", "nonzero",
                    fmt::format("{} at {}%", at["n"], percent), column(device, "bool"),
                    nonzero_work(static_cast<double>(n), static_cast<double>(percent) / 100.0));
            },
        .name_of = [](const vitals::AxisValues& at) { return fmt::format("nonzero/{}-{}pct/{}-bool", at["n"], at["density"], at["device"]); },
        .skip_reason = family_skip_reason,
    };
}

VITALS_CASES(model_cases) {
    std::vector<vitals::Case> cases;
    for (Device device : kDevices) {
        for (DType dtype : kFloatTypes) {
            const std::string where = fmt::format("{}-{}", k::device_name(device), k::dtype_short_name(dtype));
            const std::string col = column(device, k::dtype_short_name(dtype));
            cases.push_back(device_case(device, "mlp_forward/32x512/" + where, [=] {
                                 auto model = std::make_shared<k::Mlp>(k::MlpConfig{.dtype = dtype, .device = device});
                                 auto x = std::make_shared<Tensor>(Tensor::randn({32, 512}, dtype, device, 7));
                                 return make_timer(
                                     device, [model, x] { vitals::do_not_optimize(model->forward(*x)); }, "model(x)",
                                     "MLP 512-1024-512", "forward 32x512", col, mlp_work(dtype, false));
                             }));
            cases.push_back(device_case(device, "mlp_train_step/32x512/" + where, [=] {
                                 auto model = std::make_shared<k::Mlp>(k::MlpConfig{.dtype = dtype, .device = device});
                                 auto optimizer = std::make_shared<k::Sgd>(*model, 0.01);
                                 auto x = std::make_shared<Tensor>(Tensor::randn({32, 512}, dtype, device, 7));
                                 auto target = std::make_shared<Tensor>(Tensor::randn({32, 512}, dtype, device, 8));
                                 return make_timer(
                                     device,
                                     [model, optimizer, x, target] {
                                         vitals::do_not_optimize(k::train_step(*model, *optimizer, *x, *target));
                                     },
                                     "train_step(model, sgd, x, target)", "MLP 512-1024-512", "train step 32x512", col,
                                     mlp_work(dtype, true));
                             }));
        }
    }
    return cases;
}

VITALS_CASES(mask_indices_cases) {
    std::vector<vitals::Case> cases;
    for (Device device : kDevices) {
        for (const char* variant : {"before", "after"}) {
            const bool before = std::string_view(variant) == "before";
            cases.push_back(device_case(device, fmt::format("mask_indices/1M/{}-{}", k::device_name(device), variant), [=] {
                                 auto workload = std::make_shared<k::MaskIndices>(std::int64_t{1} << 20, device, 0.5);
                                 auto body = [workload, before] {
                                     vitals::do_not_optimize(before ? workload->before() : workload->after());
                                 };
                                 return make_timer(device, body,
                                                   before ? "nonzero(copy_to(gt(x64, t, f64), cpu))" : "nonzero(gt(x32, t))",
                                                   "MASK INDICES", "1M at 50%", column(device, variant),
                                                   mask_indices_work(std::int64_t{1} << 20, 0.5, before));
                             }));
        }
    }
    return cases;
}

}  // namespace
