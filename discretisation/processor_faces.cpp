#include "discretisation/processor_faces.hpp"

#include <stdexcept>

namespace fvmmini {

namespace {

std::vector<const Patch*> processor_patches(const Mesh& mesh) {
  std::vector<const Patch*> patches;
  for (const Patch& p : mesh.patches)
    if (p.neighbour_rank >= 0) patches.push_back(&p);
  return patches;
}

std::vector<int> ranks_of(const std::vector<const Patch*>& patches) {
  std::vector<int> ranks;
  for (const Patch* p : patches) ranks.push_back(p->neighbour_rank);
  return ranks;
}

std::vector<std::size_t> sizes_of(const std::vector<const Patch*>& patches, std::size_t width = 1) {
  std::vector<std::size_t> sizes;
  for (const Patch* p : patches) sizes.push_back(width * static_cast<std::size_t>(p->size));
  return sizes;
}

}  // namespace

ProcessorFaces::ProcessorFaces(const Mesh& mesh, const Communicator& comm)
    : mesh_(mesh),
      comm_(comm),
      ranks_(ranks_of(processor_patches(mesh))),
      halo_(comm, ranks_, sizes_of(processor_patches(mesh)), sizes_of(processor_patches(mesh))),
      vector_halo_(comm, ranks_, sizes_of(processor_patches(mesh), 3), sizes_of(processor_patches(mesh), 3)) {
  for (const Patch* p : processor_patches(mesh)) {
    patch_begin_.push_back(faces_.size());
    for (label f = p->start; f < p->start + p->size; ++f) faces_.push_back(f);
  }
  patch_begin_.push_back(faces_.size());
  for (std::size_t k = 0; k < faces_.size(); ++k)
    if (faces_[k] != mesh.n_internal_faces() + static_cast<label>(k))
      throw std::invalid_argument("the processor patches of a mesh part must be its first patches, right after the "
                                  "internal faces (as extract_local_mesh makes them)");
}

void ProcessorFaces::across(std::span<const double> cell_values, std::span<double> face_values) {
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    std::span<double> send = halo_.send_buffer(i);
    for (std::size_t k = 0; k < send.size(); ++k) send[k] = cell_values[mesh_.owner[faces_[patch_begin_[i] + k]]];
  }
  halo_.start();
  halo_.finish();
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    const std::span<const double> in = halo_.received(i);
    for (std::size_t k = 0; k < in.size(); ++k) face_values[patch_begin_[i] + k] = in[k];
  }
}

void ProcessorFaces::across(std::span<const Vec3> cell_values, std::span<Vec3> face_values) {
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    std::span<double> send = vector_halo_.send_buffer(i);
    for (std::size_t k = 0; 3 * k < send.size(); ++k) {
      const Vec3& v = cell_values[mesh_.owner[faces_[patch_begin_[i] + k]]];
      for (int d = 0; d < 3; ++d) send[3 * k + d] = v[d];
    }
  }
  vector_halo_.start();
  vector_halo_.finish();
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    const std::span<const double> in = vector_halo_.received(i);
    for (std::size_t k = 0; 3 * k < in.size(); ++k)
      face_values[patch_begin_[i] + k] = {in[3 * k], in[3 * k + 1], in[3 * k + 2]};
  }
}

std::vector<Vec3> ProcessorFaces::across(std::span<const Vec3> cell_values) {
  std::vector<Vec3> result(faces_.size());
  across(cell_values, result);
  return result;
}

void ProcessorFaces::fill_ghosts(std::span<double> values) {
  const auto n = static_cast<std::size_t>(mesh_.n_cells);
  across(values.first(n), values.subspan(n, faces_.size()));
}

void ProcessorFaces::fill_ghosts(std::span<Vec3> values) {
  const auto n = static_cast<std::size_t>(mesh_.n_cells);
  across(values.first(n), values.subspan(n, faces_.size()));
}

std::vector<ProcessorInterface> ProcessorFaces::interfaces(std::span<const double> coefficients) const {
  std::vector<ProcessorInterface> result;
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    ProcessorInterface interface;
    interface.neighbour_rank = ranks_[i];
    for (std::size_t k = patch_begin_[i]; k < patch_begin_[i + 1]; ++k) {
      interface.face_cells.push_back(mesh_.owner[faces_[k]]);
      interface.coefficients.push_back(coefficients[k]);
    }
    result.push_back(std::move(interface));
  }
  return result;
}

}  // namespace fvmmini
