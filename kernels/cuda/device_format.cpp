// Format name -> device upload, for the formats the registry prepares on the host.

#include <stdexcept>
#include <variant>

#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_matrix.hpp"

namespace fvmmini::cuda {

const std::vector<std::string>& device_format_names() {
  static const std::vector<std::string> names{"csr", "csr-cusparse", "sell", "sell-cusparse", "staircase"};
  return names;
}

DeviceMatrix make_device_matrix(const PreparedFormat& prepared) {
  const std::string& name = prepared.format_name;
  const HostFormat& format = prepared.format;
  if (name == "csr" && std::holds_alternative<CsrFormat>(format))
    return DeviceMatrix(make_csr_device(std::get<CsrFormat>(format)));
  if (name == "csr-cusparse" && std::holds_alternative<CsrFormat>(format))
    return DeviceMatrix(make_csr_cusparse_device(std::get<CsrFormat>(format)));
  if (name == "sell" && std::holds_alternative<SellMatrix>(format))
    return DeviceMatrix(make_sell_device(std::get<SellMatrix>(format)));
  if (name == "sell-cusparse" && std::holds_alternative<SellMatrix>(format))
    return DeviceMatrix(make_sell_cusparse_device(std::get<SellMatrix>(format)));
  if (name == "staircase" && std::holds_alternative<StaircaseMatrix>(format))
    return DeviceMatrix(make_staircase_device(std::get<StaircaseMatrix>(format), prepared.parameters.staircase_launch));
  std::string known;
  for (const auto& n : device_format_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("format '" + name + "' has no CUDA kernel (cuda formats: " + known + ")");
}

}  // namespace fvmmini::cuda
