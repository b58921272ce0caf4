// Expected<T>: a value or an error message, for module boundaries where failure is normal
// (a file that cannot be read, a rule that does not parse).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace denpex::core {

struct Error {
  std::string message;
};

template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

}  // namespace denpex::core
