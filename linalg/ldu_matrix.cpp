#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

RowFaces row_faces(const LduAddressing& a) {
  RowFaces r;
  r.ptr.assign(a.n_rows + 1, 0);
  for (label f = 0; f < a.n_faces(); ++f) {
    ++r.ptr[a.lower[f] + 1];
    ++r.ptr[a.upper[f] + 1];
  }
  for (label i = 0; i < a.n_rows; ++i) r.ptr[i + 1] += r.ptr[i];
  r.faces.resize(r.ptr[a.n_rows]);
  std::vector<label> next(r.ptr.begin(), r.ptr.end() - 1);
  for (label f = 0; f < a.n_faces(); ++f) {
    r.faces[next[a.lower[f]]++] = f;
    r.faces[next[a.upper[f]]++] = f;
  }
  return r;
}

}  // namespace fvmmini
