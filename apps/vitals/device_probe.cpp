// The device half of `vitals machine`: device-to-device copy bandwidth and cuBLAS's GEMM
// rate for the case dtypes, timed with CUDA events through the kernel set.
#include <memory>
#include <vitals/kernels/kernels.hpp>

#include "vitals/cuda_support.hpp"
#include "vitals/machine.hpp"
#include "vitals/timer.hpp"

namespace {

namespace k = vitals::kernels;
using k::Device;
using k::DType;
using k::Tensor;

// The median seconds of `stmt` timed on the kernel set's stream for about a fifth of a second.
template <class Stmt>
double device_seconds(Stmt stmt) {
    vitals::Timer timer({.stmt = std::move(stmt), .cuda_stream = k::current_stream()});
    return timer.blocked_autorange({.min_run_time = 0.2}).median();
}

std::pair<std::optional<vitals::machine::DeviceFigures>, std::string> cuda_probe() {
    const std::string reason = vitals::cuda_unavailable_reason();
    if (!reason.empty()) return {std::nullopt, reason};
    try {
        vitals::machine::DeviceFigures figures{.name = "CUDA device 0"};
        constexpr std::int64_t kCopyFloats = std::int64_t{64} << 20;  // 256 MiB each way
        auto source = std::make_shared<Tensor>(Tensor::zeros({kCopyFloats}, DType::f32, Device::cuda));
        const double copy = device_seconds([source] { vitals::do_not_optimize(source->to(Device::cuda)); });
        figures.copy_bandwidth = 2.0 * static_cast<double>(kCopyFloats) * 4 / copy;
        for (const DType dtype : {DType::f32, DType::f64}) {
            constexpr std::int64_t n = 4096;
            auto a = std::make_shared<Tensor>(Tensor::randn({n, n}, dtype, Device::cuda, 1));
            auto b = std::make_shared<Tensor>(Tensor::randn({n, n}, dtype, Device::cuda, 2));
            const double seconds = device_seconds([a, b] { vitals::do_not_optimize(k::matmul(*a, *b)); });
            (dtype == DType::f32 ? figures.peak_f32 : figures.peak_f64) = 2.0 * n * n * n / seconds;
        }
        return {figures, ""};
    } catch (const std::exception& e) {
        return {std::nullopt, std::string("measuring the device failed: ") + e.what()};
    }
}

const bool registered = (vitals::machine::register_device_probe(&cuda_probe), true);

}  // namespace
