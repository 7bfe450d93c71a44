#pragma once
// Any built format struct (CsrFormat, SellMatrix, ...), held by value behind one type, with what
// every backend needs of it whatever the format: the value array, the CSR -> value slot map and
// the size figures. Kernels ask for their own struct with as<T>().
//
// A format struct qualifies when it has nnz(), stored_entries(), padding_ratio(),
// footprint_bytes() and either `values` or `matrix.values`; `value_slot` (CSR slot -> values
// slot) when it does not keep CSR slot order.

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

namespace fvmmini {

/// Stored entries, nnz, padding ratio and footprint of a built format.
struct FormatFigures {
  std::int64_t nnz = 0;
  std::int64_t stored_entries = 0;
  double padding_ratio = 1.0;
  std::int64_t footprint_bytes = 0;
};

class StoredFormat {
 public:
  StoredFormat() = default;
  template <class T>
  StoredFormat(T matrix) : model_(std::make_unique<Model<T>>(std::move(matrix))) {}  // NOLINT: implicit on purpose
  StoredFormat(const StoredFormat& o) : model_(o.model_ ? o.model_->clone() : nullptr) {}
  StoredFormat& operator=(const StoredFormat& o) {
    if (this != &o) model_ = o.model_ ? o.model_->clone() : nullptr;
    return *this;
  }
  StoredFormat(StoredFormat&&) noexcept = default;
  StoredFormat& operator=(StoredFormat&&) noexcept = default;

  bool empty() const { return !model_; }
  /// The struct, when it is a T; nullptr otherwise.
  template <class T>
  const T* get_if() const {
    auto* m = dynamic_cast<const Model<T>*>(model_.get());
    return m ? &m->matrix : nullptr;
  }
  template <class T>
  T* get_if() {
    auto* m = dynamic_cast<Model<T>*>(model_.get());
    return m ? &m->matrix : nullptr;
  }
  /// The struct. @throws std::logic_error when it is not a T
  template <class T>
  const T& as() const {
    if (const T* m = get_if<T>()) return *m;
    throw std::logic_error(std::string("StoredFormat holds another format than ") + typeid(T).name());
  }
  template <class T>
  T& as() {
    if (T* m = get_if<T>()) return *m;
    throw std::logic_error(std::string("StoredFormat holds another format than ") + typeid(T).name());
  }

  FormatFigures figures() const { return model_->figures(); }
  /// The value array (what a backend uploads after a refresh), padding included.
  std::span<const double> values() const { return model_->values(); }
  std::span<double> values() { return model_->values(); }
  /// CSR value slot -> slot in values(); nullptr when the format keeps CSR slot order.
  const std::vector<std::int64_t>* value_slot() const { return model_->value_slot(); }

 private:
  struct Concept {
    virtual ~Concept() = default;
    virtual std::unique_ptr<Concept> clone() const = 0;
    virtual FormatFigures figures() const = 0;
    virtual std::span<double> values() = 0;
    virtual const std::vector<std::int64_t>* value_slot() const = 0;
  };
  template <class T>
  struct Model final : Concept {
    explicit Model(T m) : matrix(std::move(m)) {}
    std::unique_ptr<Concept> clone() const override { return std::make_unique<Model>(matrix); }
    FormatFigures figures() const override {
      return {matrix.nnz(), matrix.stored_entries(), matrix.padding_ratio(), matrix.footprint_bytes()};
    }
    std::span<double> values() override {
      if constexpr (requires { matrix.matrix.values; })
        return matrix.matrix.values;
      else
        return matrix.values;
    }
    const std::vector<std::int64_t>* value_slot() const override {
      if constexpr (requires { matrix.value_slot; })
        return &matrix.value_slot;
      else
        return nullptr;
    }
    T matrix;
  };
  std::unique_ptr<Concept> model_;
};

}  // namespace fvmmini
