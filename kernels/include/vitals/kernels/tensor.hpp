// Tensor: the kernel set's data: a dtype, a shape, contiguous row-major storage on one
// device. Storage comes from the device's allocator, so every allocation and free can
// be observed (the profiler's memory columns).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vitals::kernels {

enum class DType { f32, f64, boolean, i64 };
enum class Device { cpu, cuda };

std::size_t element_size(DType dtype);
// The names torch's profiler writes as "Input type": float, double, bool, long int.
std::string_view dtype_name(DType dtype);
// Short names for case names: f32, f64, bool, i64.
std::string_view dtype_short_name(DType dtype);
std::string_view device_name(Device device);

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() { return DType::f32; }
template <>
constexpr DType dtype_of<double>() { return DType::f64; }
template <>
constexpr DType dtype_of<bool>() { return DType::boolean; }
template <>
constexpr DType dtype_of<std::int64_t>() { return DType::i64; }

using Shape = std::vector<std::int64_t>;
// "[32, 512]"
std::string shape_string(const Shape& shape);

class Tensor {
public:
    Tensor() = default;
    Tensor(const Tensor&) = default;
    Tensor& operator=(const Tensor&) = default;
    // A moved-from tensor is undefined (defined() is false, no shape, no storage), so an
    // op given one refuses it by name rather than reading freed or missing storage.
    Tensor(Tensor&& other) noexcept;
    Tensor& operator=(Tensor&& other) noexcept;

    // Uninitialised storage. Throws std::invalid_argument for a negative extent, and
    // std::runtime_error (with the reason) for a CUDA tensor where no device is usable.
    static Tensor empty(Shape shape, DType dtype, Device device = Device::cpu);
    static Tensor zeros(Shape shape, DType dtype, Device device = Device::cpu);
    // Standard normal values from a fixed seed; the same values on every device.
    static Tensor randn(Shape shape, DType dtype, Device device = Device::cpu, std::uint64_t seed = 0);
    // A CPU tensor holding `values` (numel must match the shape).
    template <class T>
    static Tensor from_vector(Shape shape, const std::vector<T>& values);

    bool defined() const { return defined_; }
    const Shape& shape() const { return shape_; }
    std::int64_t dim() const { return static_cast<std::int64_t>(shape_.size()); }
    std::int64_t size(std::int64_t axis) const;
    std::int64_t numel() const;
    std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * element_size(dtype_); }
    DType dtype() const { return dtype_; }
    Device device() const { return device_; }

    void* raw_data() { return storage_.get(); }
    const void* raw_data() const { return storage_.get(); }
    // Typed access; throws std::invalid_argument when T is not the tensor's dtype.
    template <class T>
    T* data();
    template <class T>
    const T* data() const;

    // A copy on `device` (host<->device copies; the same device copies too).
    Tensor to(Device device) const;
    // The values, copied to the host.
    template <class T>
    std::vector<T> to_vector() const;

    // Sets every element to zero, in place.
    void zero_();

private:
    Tensor(Shape shape, DType dtype, Device device, std::shared_ptr<void> storage)
        : shape_(std::move(shape)), dtype_(dtype), device_(device), storage_(std::move(storage)) {}

    Shape shape_;
    DType dtype_ = DType::f32;
    Device device_ = Device::cpu;
    std::shared_ptr<void> storage_;  // may hold nullptr for an empty tensor
    bool defined_ = false;
};

// "float[32, 512] cpu", for error messages.
std::string describe(const Tensor& t);

}  // namespace vitals::kernels
