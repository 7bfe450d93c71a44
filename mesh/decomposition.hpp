#pragma once
// Decomposing a mesh for a run on several ranks, as OpenFOAM's decomposePar does: each cell gets a
// part (METIS k-way on the cell graph, or the "simple" split along the axes), and each part's
// cells become a mesh of their own whose faces to another part form a processor patch.

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini {

enum class DecompositionMethod { metis, simple };
/// What METIS balances: cells (none: each cell alike), or the matrix entries of their rows
/// (row_entries: a cell weighs 1 + its internal faces, so that parts of a mesh of mixed cell
/// shapes carry equal SpMV work).
enum class DecompositionWeights { none, row_entries };

struct DecompositionSettings {
  DecompositionMethod method = DecompositionMethod::metis;
  int parts = 1;
  /// simple: parts along x, y and z (their product is `parts`)
  std::array<int, 3> simple_parts{0, 0, 0};
  DecompositionWeights weights = DecompositionWeights::none;  ///< metis only
  /// metis: each cell's group (0 .. groups - 1), the groups kept whole (partitioned as the
  /// vertices of METIS's graph: discretisation/gamg_groups.hpp); empty: single cells. On the
  /// root only, for distribute_mesh.
  std::vector<label> groups{};
};

/// The part of each cell, every part non-empty. metis: METIS_PartGraphKway on the cell graph
/// (faces as edges, fixed seed: the same mesh and part count give the same parts; the cells
/// weighted as settings.weights says) or, with settings.groups, on the graph of those groups (a
/// group weighing its cells, an edge the faces between two groups, at most about 0.5 %
/// imbalance); simple: the
/// cells sorted by centre x and cut into simple_parts[0] groups of equal count, each sorted by y
/// and cut, then by z (OpenFOAM's simple).
/// @throws std::invalid_argument for more parts than cells, a simple split whose product is not
///         `parts`, groups not one a cell, or a part left empty; std::runtime_error when METIS fails
std::vector<int> decompose_cells(const Mesh& mesh, const MeshGeometry& geometry, const DecompositionSettings& settings);

/// What the log says of a decomposition.
struct DecompositionFigures {
  std::vector<label> cells;            ///< per part
  std::vector<label> processor_faces;  ///< per part: faces shared with another part
  std::vector<int> neighbours;         ///< per part: parts it shares a face with
  double imbalance = 0.0;              ///< largest part / mean part - 1
  std::vector<long long> entries;      ///< per part: the matrix entries of its rows (cells + their faces)
  double entry_imbalance = 0.0;        ///< the same measure of imbalance on entries
};
DecompositionFigures decomposition_figures(const Mesh& mesh, std::span<const int> cell_part, int parts);

/// One part's cells as a mesh of their own, with the maps back to the whole mesh.
struct LocalMesh {
  Mesh mesh;
  std::vector<label> global_cell;  ///< per local cell
  std::vector<label> global_face;  ///< per local face; a processor face is the shared internal face
};

/// Part `part` of the mesh. Its cells keep their relative order; its faces are the internal faces
/// between two of its cells (in the whole mesh's order), then one processor patch
/// ("procBoundary<part>to<other>", type "processor", neighbour_rank other) per neighbouring part in
/// increasing order, holding the shared faces in the whole mesh's face order (the same order on
/// both sides), each pointing out of this part, then every patch of the whole mesh (each kept,
/// perhaps empty, so that every part has the same physical patches in the same order) with its
/// faces on the part. The processor faces come right after the internal faces so that the faces
/// coupling two cells are one range: the flow step treats a processor face as an internal face
/// whose neighbour is a ghost of the cell across (ProcessorFaces::fill_ghosts).
LocalMesh extract_local_mesh(const Mesh& mesh, std::span<const int> cell_part, int part);

/// The processor patch name for faces from `part` to `other`.
std::string processor_patch_name(int part, int other);

/// A part as bytes and back, to send it to its rank.
std::vector<std::byte> pack_local_mesh(const LocalMesh& local);
/// @throws std::runtime_error for bytes that are not a packed part
LocalMesh unpack_local_mesh(std::span<const std::byte> bytes);

/// This rank's part of a run on all ranks of comm. On the root, `whole` is the mesh (checked):
/// it decomposes it into comm.size() parts and sends each rank its part; the other ranks pass
/// null and receive. Every rank returns its part and the decomposition's figures. A decomposition
/// that fails on the root (more ranks than cells, METIS) fails on every rank with its message.
/// @throws std::invalid_argument or std::runtime_error, the same on every rank
struct DistributedMesh {
  LocalMesh local;
  DecompositionFigures figures;
};
DistributedMesh distribute_mesh(const Mesh* whole, const MeshGeometry* geometry,
                                const DecompositionSettings& settings, const Communicator& comm);

}  // namespace fvmmini
