#include "linalg/ordering/orderings.hpp"

#include "linalg/counting_sort.hpp"
#include "linalg/ordering/colouring.hpp"
#include "linalg/parallel.hpp"

#include <metis.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
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
#pragma omp parallel for schedule(static) if (a.n_rows > min_parallel_rows)
  for (label i = 0; i < a.n_rows; ++i)
    for (label k = g.offset[i]; k < g.offset[i + 1]; ++k) {
      const label f = g.adj[k];
      g.adj[k] = a.lower[f] == i ? a.upper[f] : a.lower[f];
    }
  return g;
}

/// A breadth-first level this wide or wider is expanded on every thread; a narrower one on one
/// (a parallel region costs more than the level).
constexpr std::size_t min_parallel_frontier = 4096;

// Breadth-first level structure from root over unvisited nodes: the nodes level by level (within
// a level in no fixed order: only the levels are used), the index in that list where the last
// level starts, and the depth. `mark` holds the current stamp per node.
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
  std::vector<std::vector<label>> found(static_cast<std::size_t>(omp_get_max_threads()));
  while (true) {
    const size_t level_end = out.order.size();
    if (found.size() == 1 || level_end - level_start < min_parallel_frontier) {
      for (size_t q = level_start; q < level_end; ++q)
        for (label k = g.offset[out.order[q]]; k < g.offset[out.order[q] + 1]; ++k) {
          const label j = g.adj[k];
          if (!done[j] && mark[j] != stamp) {
            mark[j] = stamp;
            out.order.push_back(j);
          }
        }
    } else {
      // --- each thread claims the unmarked neighbours of its share of the level
#pragma omp parallel
      {
        std::vector<label>& mine = found[omp_get_thread_num()];
        mine.clear();
#pragma omp for schedule(static)
        for (size_t q = level_start; q < level_end; ++q)
          for (label k = g.offset[out.order[q]]; k < g.offset[out.order[q] + 1]; ++k) {
            const label j = g.adj[k];
            std::atomic_ref<int> m(mark[j]);
            if (!done[j] && m.load(std::memory_order_relaxed) != stamp &&
                m.exchange(stamp, std::memory_order_relaxed) != stamp)
              mine.push_back(j);
          }
      }
      for (const std::vector<label>& mine : found) out.order.insert(out.order.end(), mine.begin(), mine.end());
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

/// Cuthill–McKee's breadth-first pass from `root` over the nodes not `done`, appended to `order`:
/// each node's unvisited neighbours by (degree, index), the nodes taken in the order they were
/// appended. Level by level, this is: a node of the next level belongs to the first node of this
/// level (in the order) next to it, and the next level is its owners' children in their order.
/// A wide level is expanded so on every thread (`owner`: per node, the first position next to it;
/// all past the last position on entry, and left so for the nodes not reached; empty on one
/// thread), with the order the one-node-at-a-time pass gives.
void cuthill_mckee_pass(const Graph& g, label root, std::vector<char>& done, std::vector<label>& owner,
                        std::vector<label>& order) {
  const auto by_degree = [&](label i, label j) {
    return g.degree(i) != g.degree(j) ? g.degree(i) < g.degree(j) : i < j;
  };
  std::vector<label> neighbours;
  const bool threads = !owner.empty();  // sized only where several threads run
  std::size_t level_start = order.size();
  order.push_back(root);
  done[root] = 1;
  while (level_start < order.size()) {
    const std::size_t level_end = order.size();
    if (!threads || level_end - level_start < min_parallel_frontier) {
      for (std::size_t head = level_start; head < level_end; ++head) {
        const label a = order[head];
        neighbours.clear();
        for (label k = g.offset[a]; k < g.offset[a + 1]; ++k)
          if (!done[g.adj[k]]) neighbours.push_back(g.adj[k]);
        std::sort(neighbours.begin(), neighbours.end(), by_degree);
        for (label j : neighbours) {
          done[j] = 1;
          order.push_back(j);
        }
      }
      level_start = level_end;
      continue;
    }
    const auto first = static_cast<std::int64_t>(level_start), last = static_cast<std::int64_t>(level_end);
    std::vector<std::size_t> place(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
#pragma omp parallel
    {
      // --- each node of the next level's owner: the first position next to it
#pragma omp for schedule(static)
      for (std::int64_t p = first; p < last; ++p)
        for (label k = g.offset[order[p]]; k < g.offset[order[p] + 1]; ++k)
          if (const label j = g.adj[k]; !done[j]) {
            std::atomic_ref<label> o(owner[j]);
            label seen = o.load(std::memory_order_relaxed);
            while (p < seen && !o.compare_exchange_weak(seen, static_cast<label>(p), std::memory_order_relaxed)) {
            }
          }
      // --- each thread's run of owners lists their children, which follow the runs before
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      std::vector<label> children;
      for (std::int64_t p = first + (last - first) * t / nt; p < first + (last - first) * (t + 1) / nt; ++p) {
        const std::size_t from = children.size();
        for (label k = g.offset[order[p]]; k < g.offset[order[p] + 1]; ++k)
          if (const label j = g.adj[k]; !done[j] && owner[j] == p) children.push_back(j);
        std::sort(children.begin() + static_cast<std::ptrdiff_t>(from), children.end(), by_degree);
      }
      place[t + 1] = children.size();
#pragma omp barrier
#pragma omp single
      {
        place[0] = level_end;
        for (int u = 0; u < nt; ++u) place[u + 1] += place[u];
        order.resize(place[nt]);
      }
      std::copy(children.begin(), children.end(), order.begin() + static_cast<std::ptrdiff_t>(place[t]));
#pragma omp barrier
#pragma omp for schedule(static)
      for (std::int64_t q = last; q < static_cast<std::int64_t>(order.size()); ++q) done[order[q]] = 1;
    }
    level_start = level_end;
  }
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
  // the numbering pass's first neighbour per node, for the levels it expands on every thread
  std::vector<label> owner(omp_get_max_threads() > 1 ? n : 0, std::numeric_limits<label>::max());

  // --- candidate starts by (degree, index): the first unvisited one is a minimally connected
  //     node of its component
  label max_degree = 0;
#pragma omp parallel for schedule(static) reduction(max : max_degree) if (n > min_parallel_rows)
  for (label i = 0; i < n; ++i) max_degree = std::max(max_degree, g.degree(i));
  const std::vector<label> by_degree =
      counting_sort(n, max_degree + 1, [](label i) { return i; }, [&](label i) { return g.degree(i); });

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
    cuthill_mckee_pass(g, q, done, owner, order);
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
  // --- base's order by length (max - length when descending), ties in base's order
  label max_length = 0;
#pragma omp parallel for schedule(static) reduction(max : max_length) if (n > min_parallel_rows)
  for (label i = 0; i < n; ++i) max_length = std::max(max_length, row_lengths[i]);
  std::vector<label> order = counting_sort(
      n, max_length + 1, [&](label k) { return base.new_to_old[k]; },
      [&](label i) { return descending ? max_length - row_lengths[i] : row_lengths[i]; });
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

// The units listed in linalg/CMakeLists.txt (FVMMINI_ORDERING_UNITS): declarations of
// ordering_unit_<file>() and listed_ordering_units().
#include "ordering_units.inc"

const std::vector<OrderingUnit>& ordering_table() {
  static const std::vector<OrderingUnit> table = [] {
    std::vector<OrderingUnit> units;
    for (const OrderingUnit* unit : listed_ordering_units()) {
      for (const OrderingUnit& known : units)
        if (known.name == unit->name) throw std::logic_error("two ordering units named '" + unit->name + "'");
      units.push_back(*unit);
    }
    return units;
  }();
  return table;
}

const std::vector<std::string>& ordering_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const OrderingUnit& unit : ordering_table()) out.push_back(unit.name);
    return out;
  }();
  return names;
}

const OrderingUnit& find_ordering(const std::string& name) {
  for (const OrderingUnit& unit : ordering_table())
    if (unit.name == name) return unit;
  std::string known;
  for (const auto& n : ordering_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown ordering '" + name + "' (known: " + known + ")");
}

Permutation make_ordering(const std::string& name, const LduAddressing& addressing, std::uint64_t seed) {
  return find_ordering(name).make(addressing, seed);
}

}  // namespace fvmmini
