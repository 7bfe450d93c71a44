// distribute_ldu (linalg/distributed_ldu.hpp): every part's block plus its interfaces, with the
// values across taken from the part on the other side in the agreed face order, multiplies
// like the whole matrix.

#include <gtest/gtest.h>

#include <random>

#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/distributed_ldu.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

void expect_parts_multiply_like_whole(const LduMatrix& whole, std::span<const int> part, int parts) {
  const label n = whole.n_rows();
  const auto x = test::random_vector(n, 7);
  std::vector<double> y(n);
  reference::ldu_spmv(whole, x, y);

  std::vector<DistributedLdu> pieces;
  std::vector<std::vector<label>> rows(static_cast<std::size_t>(parts));
  for (label i = 0; i < n; ++i) rows[part[i]].push_back(i);
  for (int p = 0; p < parts; ++p) pieces.push_back(distribute_ldu(whole, part, p));
  label total = 0;
  for (int p = 0; p < parts; ++p) {
    const DistributedLdu& d = pieces[p];
    ASSERT_EQ(d.local.n_rows(), static_cast<label>(rows[p].size()));
    total += d.local.n_rows();
    std::vector<double> x_local(rows[p].size()), y_local(rows[p].size());
    for (std::size_t i = 0; i < rows[p].size(); ++i) x_local[i] = x[rows[p][i]];
    reference::ldu_spmv(d.local, x_local, y_local);
    int previous = -1;
    for (const ProcessorInterface& i : d.interfaces) {
      EXPECT_GT(i.neighbour_rank, previous);
      previous = i.neighbour_rank;
      ASSERT_NE(i.neighbour_rank, p);
      // the other side's interface back to p: the same faces in the same order
      const DistributedLdu& other = pieces[i.neighbour_rank];
      const ProcessorInterface* back = nullptr;
      for (const auto& o : other.interfaces)
        if (o.neighbour_rank == p) back = &o;
      ASSERT_NE(back, nullptr);
      ASSERT_EQ(back->face_cells.size(), i.face_cells.size());
      for (std::size_t k = 0; k < i.face_cells.size(); ++k) {
        EXPECT_EQ(back->coefficients[k], i.coefficients[k]);
        y_local[i.face_cells[k]] += i.coefficients[k] * x[rows[i.neighbour_rank][back->face_cells[k]]];
      }
    }
    for (std::size_t r = 0; r < rows[p].size(); ++r)
      EXPECT_NEAR(y_local[r], y[rows[p][r]], 1e-13 * (1.0 + std::abs(y[rows[p][r]]))) << "part " << p << " row " << r;
  }
  EXPECT_EQ(total, n);
}

TEST(DistributedLdu, PartsMultiplyLikeTheWholeMatrix) {
  const LduMatrix box = test::box_matrix(7, 6, 5, 3);
  std::vector<int> slabs(static_cast<std::size_t>(box.n_rows()));
  for (label i = 0; i < box.n_rows(); ++i) slabs[i] = static_cast<int>(i * 3 / box.n_rows());
  expect_parts_multiply_like_whole(box, slabs, 3);

  const LduMatrix random = test::random_matrix(300, 4, 11);
  std::mt19937_64 rng(5);
  std::vector<int> scattered(300);
  for (auto& p : scattered) p = static_cast<int>(rng() % 4);
  expect_parts_multiply_like_whole(random, scattered, 4);
}

TEST(DistributedLdu, AnAsymmetricMatrixIsRefused) {
  const LduMatrix whole = test::asymmetric(test::box_matrix(4, 3, 2, 5), 6);
  const std::vector<int> parts(static_cast<std::size_t>(whole.n_rows()), 0);
  EXPECT_THROW(distribute_ldu(whole, parts, 0), std::invalid_argument);
}

TEST(DistributedLdu, OnePartIsTheWholeMatrix) {
  const LduMatrix box = test::box_matrix(4, 4, 4, 1);
  const DistributedLdu d = distribute_ldu(box, std::vector<int>(64, 0), 0);
  EXPECT_TRUE(d.interfaces.empty());
  EXPECT_EQ(d.local.diag, box.diag);
  EXPECT_EQ(d.local.upper, box.upper);
  EXPECT_EQ(d.local.lower_addr(), box.lower_addr());
  EXPECT_THROW(distribute_ldu(box, std::vector<int>(63, 0), 0), std::invalid_argument);
}

}  // namespace
}  // namespace fvmmini
