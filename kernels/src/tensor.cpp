#include "vitals/kernels/tensor.hpp"

#include <fmt/format.h>

#include <limits>
#include <utility>

#include <cstring>
#include <random>
#include <stdexcept>

#include "cuda_backend.hpp"
#include "eigen_threads.hpp"
#include "vitals/cuda_support.hpp"
#include "vitals/kernels/allocator.hpp"
#include "vitals/kernels/cuda_context.hpp"

namespace vitals::kernels {

std::size_t element_size(DType dtype) {
    switch (dtype) {
        case DType::f32: return 4;
        case DType::f64: return 8;
        case DType::boolean: return 1;
        case DType::i64: return 8;
    }
    return 0;
}

std::string_view dtype_name(DType dtype) {
    switch (dtype) {
        case DType::f32: return "float";
        case DType::f64: return "double";
        case DType::boolean: return "bool";
        case DType::i64: return "long int";
    }
    return "?";
}

std::string_view dtype_short_name(DType dtype) {
    switch (dtype) {
        case DType::f32: return "f32";
        case DType::f64: return "f64";
        case DType::boolean: return "bool";
        case DType::i64: return "i64";
    }
    return "?";
}

std::string_view device_name(Device device) { return device == Device::cpu ? "cpu" : "cuda"; }

std::string shape_string(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

std::string describe(const Tensor& t) {
    if (!t.defined()) return "an undefined tensor";
    return fmt::format("{}{} {}", dtype_name(t.dtype()), shape_string(t.shape()), device_name(t.device()));
}

namespace {

// The element count, refusing a negative extent and a count (or, with its element size,
// a byte size) that does not fit: such a shape would wrap around to a small tensor.
std::int64_t count_elements(const Shape& shape, std::size_t element_bytes = 1) {
    std::int64_t n = 1;
    for (std::int64_t extent : shape) {
        if (extent < 0) throw std::invalid_argument(fmt::format("tensor shape {} has a negative extent", shape_string(shape)));
        if (extent != 0 && n > std::numeric_limits<std::int64_t>::max() / extent) {
            throw std::invalid_argument(fmt::format("tensor shape {} has more elements than a 64-bit count holds", shape_string(shape)));
        }
        n *= extent;
    }
    if (element_bytes > 1 && n > std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(element_bytes)) {
        throw std::invalid_argument(fmt::format("tensor shape {} of {}-byte elements is more bytes than memory can address",
                                                shape_string(shape), element_bytes));
    }
    return n;
}

cuda_backend::CopyKind copy_kind(Device from, Device to) {
    if (from == Device::cpu) return cuda_backend::CopyKind::host_to_device;
    return to == Device::cpu ? cuda_backend::CopyKind::device_to_host : cuda_backend::CopyKind::device_to_device;
}

}  // namespace

Tensor Tensor::empty(Shape shape, DType dtype, Device device) {
    const std::size_t bytes = static_cast<std::size_t>(count_elements(shape, element_size(dtype))) * element_size(dtype);
    if (device == Device::cuda) {
        const std::string reason = vitals::cuda_unavailable_reason();
        if (!reason.empty()) {
            throw std::runtime_error(fmt::format("cannot make a CUDA tensor {}: {}", shape_string(shape), reason));
        }
    }
    void* address = detail::allocate(device, bytes);
    std::shared_ptr<void> storage(address, [device, bytes](void* p) { detail::deallocate(device, p, bytes); });
    Tensor t(std::move(shape), dtype, device, std::move(storage));
    t.defined_ = true;
    return t;
}

Tensor Tensor::zeros(Shape shape, DType dtype, Device device) {
    Tensor t = empty(std::move(shape), dtype, device);
    t.zero_();
    return t;
}

Tensor Tensor::randn(Shape shape, DType dtype, Device device, std::uint64_t seed) {
    if (dtype != DType::f32 && dtype != DType::f64) {
        throw std::invalid_argument(fmt::format("randn: dtype must be float or double, got {}", dtype_name(dtype)));
    }
    // Drawn on the host in double, then rounded: every device and dtype sees the same values.
    Tensor host = empty(std::move(shape), dtype, Device::cpu);
    std::mt19937_64 engine(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    const std::int64_t n = host.numel();
    if (dtype == DType::f32) {
        float* out = host.data<float>();
        for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(normal(engine));
    } else {
        double* out = host.data<double>();
        for (std::int64_t i = 0; i < n; ++i) out[i] = normal(engine);
    }
    return device == Device::cpu ? host : host.to(device);
}

template <class T>
Tensor Tensor::from_vector(Shape shape, const std::vector<T>& values) {
    Tensor t = empty(std::move(shape), dtype_of<T>(), Device::cpu);
    if (static_cast<std::size_t>(t.numel()) != values.size()) {
        throw std::invalid_argument(fmt::format("from_vector: {} values for shape {}", values.size(), shape_string(t.shape())));
    }
    T* out = t.data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i];
    return t;
}

std::int64_t Tensor::size(std::int64_t axis) const {
    if (axis < 0) axis += dim();
    if (axis < 0 || axis >= dim()) {
        throw std::out_of_range(fmt::format("axis {} is out of range for {}", axis, describe(*this)));
    }
    return shape_[static_cast<std::size_t>(axis)];
}

std::int64_t Tensor::numel() const { return count_elements(shape_); }

Tensor::Tensor(Tensor&& other) noexcept
    : shape_(std::move(other.shape_)),
      dtype_(other.dtype_),
      device_(other.device_),
      storage_(std::move(other.storage_)),
      defined_(std::exchange(other.defined_, false)) {
    other.shape_.clear();
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
    if (this != &other) {
        shape_ = std::move(other.shape_);
        dtype_ = other.dtype_;
        device_ = other.device_;
        storage_ = std::move(other.storage_);
        defined_ = std::exchange(other.defined_, false);
        other.shape_.clear();
    }
    return *this;
}

template <class T>
T* Tensor::data() {
    if (dtype_of<T>() != dtype_) {
        throw std::invalid_argument(fmt::format("data<{}>() on {}", dtype_name(dtype_of<T>()), describe(*this)));
    }
    return static_cast<T*>(storage_.get());
}

template <class T>
const T* Tensor::data() const {
    return const_cast<Tensor*>(this)->data<T>();
}

Tensor Tensor::to(Device device) const {
    Tensor out = empty(shape_, dtype_, device);
    if (nbytes() == 0) return out;
    if (device_ == Device::cpu && device == Device::cpu) {
        std::memcpy(out.raw_data(), raw_data(), nbytes());
    } else {
        cuda_backend::copy(out.raw_data(), raw_data(), nbytes(), copy_kind(device_, device), current_stream());
    }
    return out;
}

template <class T>
std::vector<T> Tensor::to_vector() const {
    const Tensor host = device_ == Device::cpu ? *this : to(Device::cpu);
    const T* values = host.data<T>();
    return std::vector<T>(values, values + numel());
}

void Tensor::zero_() {
    if (nbytes() == 0) return;
    if (device_ == Device::cpu) {
        std::memset(raw_data(), 0, nbytes());
    } else {
        cuda_backend::fill_zero(raw_data(), nbytes(), current_stream());
    }
}

#define VITALS_TENSOR_INSTANTIATE(T)                                                \
    template Tensor Tensor::from_vector<T>(Shape, const std::vector<T>&);           \
    template T* Tensor::data<T>();                                                  \
    template const T* Tensor::data<T>() const;                                      \
    template std::vector<T> Tensor::to_vector<T>() const;
VITALS_TENSOR_INSTANTIATE(float)
VITALS_TENSOR_INSTANTIATE(double)
VITALS_TENSOR_INSTANTIATE(bool)
VITALS_TENSOR_INSTANTIATE(std::int64_t)
#undef VITALS_TENSOR_INSTANTIATE

// Every program that makes tensors links this file, so Eigen follows a Timer's num_threads.
[[maybe_unused]] const bool eigen_thread_count_registered = register_eigen_thread_count();

}  // namespace vitals::kernels
