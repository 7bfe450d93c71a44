#include "linalg/ordering/orderings.hpp"

#include "linalg/ordering/colouring.hpp"

#include <metis.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace fvmmini {

namespace {

// The matrix graph without the diagonal: neighbours of i are adj[offset[i] .. offset[i+1]).
struct Graph {
  std::vector<label> offset;
  std::vector<label> adj;
  label n() const { return static_cast<label>(offset.size()) - 1; }
  label degree(label i) const { return offset[i + 1] - offset[i]; }
};

Graph make_graph(const LduAddressing& a) {
  // the neighbour across each of a row's faces: lower neighbours ascending, then upper ones
  RowFaces rows = row_faces(a);
  Graph g{std::move(rows.ptr), std::move(rows.faces)};
  for (label i = 0; i < a.n_rows; ++i)
    for (label k = g.offset[i]; k < g.offset[i + 1]; ++k) {
      const label f = g.adj[k];
      g.adj[k] = a.lower[f] == i ? a.upper[f] : a.lower[f];
    }
  return g;
}

// Breadth-first level structure from root over unvisited nodes; returns the nodes in BFS order
// and the index in that list where the last level starts. `mark` holds the current stamp per node.
struct Levels {
  std::vector<label> order;
  size_t last_level_start = 0;
  int depth = 0;
};

void level_structure(const Graph& g, label root, std::vector<int>& mark, int stamp, const std::vector<char>& done,
                     Levels& out) {
  out.order.clear();
  out.order.push_back(root);
  mark[root] = stamp;
  size_t level_start = 0;
  out.depth = 0;
  while (true) {
    const size_t level_end = out.order.size();
    for (size_t q = level_start; q < level_end; ++q)
      for (label k = g.offset[out.order[q]]; k < g.offset[out.order[q] + 1]; ++k) {
        const label j = g.adj[k];
        if (!done[j] && mark[j] != stamp) {
          mark[j] = stamp;
          out.order.push_back(j);
        }
      }
    if (out.order.size() == level_end) {
      out.last_level_start = level_start;
      return;
    }
    level_start = level_end;
    ++out.depth;
  }
}

label min_degree_node(const Graph& g, const std::vector<label>& nodes, size_t from) {
  label best = nodes[from];
  for (size_t q = from; q < nodes.size(); ++q)
    if (g.degree(nodes[q]) < g.degree(best) || (g.degree(nodes[q]) == g.degree(best) && nodes[q] < best))
      best = nodes[q];
  return best;
}

}  // namespace

Permutation cuthill_mckee(const LduAddressing& addressing, CmStart start) {
  const Graph g = make_graph(addressing);
  const label n = g.n();
  std::vector<label> order;
  order.reserve(n);
  std::vector<char> done(n, 0);
  std::vector<int> mark(n, 0);
  int stamp = 0;
  Levels levels;
  std::vector<label> neighbours;

  // --- candidate starts by (degree, index): the first unvisited one is a minimally connected
  //     node of its component (counting sort by degree, stable in the index)
  std::vector<label> by_degree(n);
  {
    label max_degree = 0;
    for (label i = 0; i < n; ++i) max_degree = std::max(max_degree, g.degree(i));
    std::vector<label> first(max_degree + 2, 0);
    for (label i = 0; i < n; ++i) ++first[g.degree(i) + 1];
    for (label d = 0; d <= max_degree; ++d) first[d + 1] += first[d];
    for (label i = 0; i < n; ++i) by_degree[first[g.degree(i)]++] = i;
  }

  for (label seed : by_degree) {
    if (done[seed]) continue;
    label q = seed;
    if (start == CmStart::pseudo_peripheral) {
      // --- George & Liu: move to a min-degree node of the last level while the eccentricity grows
      level_structure(g, q, mark, ++stamp, done, levels);
      while (true) {
        const label x = min_degree_node(g, levels.order, levels.last_level_start);
        const int depth_q = levels.depth;
        level_structure(g, x, mark, ++stamp, done, levels);
        if (levels.depth <= depth_q) break;
        q = x;
      }
    }
    // --- Algorithm 2: BFS from q, each node's unvisited neighbours by (degree, index)
    size_t head = order.size();
    order.push_back(q);
    done[q] = 1;
    while (head < order.size()) {
      const label a = order[head++];
      neighbours.clear();
      for (label k = g.offset[a]; k < g.offset[a + 1]; ++k)
        if (!done[g.adj[k]]) neighbours.push_back(g.adj[k]);
      std::sort(neighbours.begin(), neighbours.end(), [&](label i, label j) {
        return g.degree(i) != g.degree(j) ? g.degree(i) < g.degree(j) : i < j;
      });
      for (label j : neighbours) {
        done[j] = 1;
        order.push_back(j);
      }
    }
  }
  return Permutation::from_new_to_old(std::move(order));
}

Permutation reverse_cuthill_mckee(const LduAddressing& addressing) {
  auto order = cuthill_mckee(addressing, CmStart::pseudo_peripheral).new_to_old;
  std::reverse(order.begin(), order.end());
  return Permutation::from_new_to_old(std::move(order));
}

Permutation group_by_row_length(std::span<const label> row_lengths, const Permutation& base, bool descending) {
  const auto n = static_cast<label>(row_lengths.size());
  if (base.size() != n)
    throw std::invalid_argument("group_by_row_length: permutation of " + std::to_string(base.size()) +
                                " indices for " + std::to_string(n) + " rows");
  std::vector<label> length(row_lengths.begin(), row_lengths.end());
  // --- stable counting sort of base's order by length (key max - length when descending)
  const label max_length = n > 0 ? *std::max_element(length.begin(), length.end()) : 0;
  if (descending)
    for (auto& l : length) l = max_length - l;
  std::vector<label> start(max_length + 2, 0);
  for (label i = 0; i < n; ++i) ++start[length[i] + 1];
  for (label k = 0; k <= max_length; ++k) start[k + 1] += start[k];
  std::vector<label> order(n);
  for (label i = 0; i < n; ++i) {
    const label old = base.new_to_old[i];
    order[start[length[old]]++] = old;
  }
  return Permutation::from_new_to_old(std::move(order));
}

Permutation staircase_ordering(const LduAddressing& addressing) {
  return group_by_row_length(row_lengths(addressing), cuthill_mckee(addressing, CmStart::min_degree));
}

Permutation metis_ordering(const LduAddressing& addressing) {
  const label n = addressing.n_rows;
  if (addressing.n_faces() == 0) return Permutation::identity(n);
  const Graph g = make_graph(addressing);
  static_assert(sizeof(idx_t) == sizeof(label), "METIS idx_t must be 32-bit to share the graph arrays");
  std::vector<idx_t> xadj(g.offset.begin(), g.offset.end());
  std::vector<idx_t> adjncy(g.adj.begin(), g.adj.end());
  std::vector<idx_t> perm(n), iperm(n);
  idx_t nvtxs = n;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  const int status = METIS_NodeND(&nvtxs, xadj.data(), adjncy.data(), nullptr, options, perm.data(), iperm.data());
  if (status != METIS_OK) throw std::runtime_error("METIS_NodeND failed with status " + std::to_string(status));
  // METIS: row i of the permuted matrix is row perm[i] of the original.
  return Permutation::from_new_to_old(std::vector<label>(perm.begin(), perm.end()));
}

Permutation random_ordering(label n_rows, std::uint64_t seed) {
  std::vector<label> order(n_rows);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  // --- Fisher-Yates with our own index draw, so the result does not depend on the standard library
  for (label i = n_rows - 1; i > 0; --i) {
    const auto j = static_cast<label>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return Permutation::from_new_to_old(std::move(order));
}

Permutation colour_ordering(const LduAddressing& addressing) {
  const Graph g = make_graph(addressing);
  const Colouring c = greedy_colouring(g.offset, g.adj);
  std::vector<label> new_to_old(addressing.n_rows);
  std::iota(new_to_old.begin(), new_to_old.end(), 0);
  std::stable_sort(new_to_old.begin(), new_to_old.end(), [&](label a, label b) { return c.colour[a] < c.colour[b]; });
  return Permutation::from_new_to_old(std::move(new_to_old));
}

const std::vector<std::string>& ordering_names() {
  static const std::vector<std::string> names{"none", "cm", "rcm", "staircase", "metis", "colour", "random"};
  return names;
}

Permutation make_ordering(const std::string& name, const LduAddressing& addressing, std::uint64_t seed) {
  if (name == "none") return Permutation::identity(addressing.n_rows);
  if (name == "cm") return cuthill_mckee(addressing);
  if (name == "rcm") return reverse_cuthill_mckee(addressing);
  if (name == "staircase") return staircase_ordering(addressing);
  if (name == "metis") return metis_ordering(addressing);
  if (name == "colour") return colour_ordering(addressing);
  if (name == "random") return random_ordering(addressing.n_rows, seed);
  std::string known;
  for (const auto& n : ordering_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown ordering '" + name + "' (known: " + known + ")");
}

}  // namespace fvmmini
