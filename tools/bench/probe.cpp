#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include "tools/bench/bench_inputs.hpp"
#include "registry/format_registry.hpp"
#include "linalg/formats/staircase_matrix.hpp"
#include "linalg/formats/csr_format.hpp"
using namespace fvmmini;
int main(int argc, char** argv) {
  int n = atoi(argv[1]); bool poly = argc > 2 && argv[2][0]=='p';
  auto bm = poly ? bench::polyhedral_like(n, 0.01, 1) : bench::box_laplacian(n);
  for (std::string ord : {"cm", "rcm", "none", "metis"}) {
    auto p = prepare_format(bm.matrix, "csr", ord, default_format_parameters());
    auto& m = p.format.as<CsrFormat>().matrix;
    long chunks=0, rel=0, base=0; long maxbw=0;
    for (label r0=0; r0<m.n_rows; r0+=32) { long lo=1L<<40, hi=-(1L<<40); bool okrel=true;
      for (label r=r0; r<std::min<label>(r0+32,m.n_rows); ++r) for (auto s=m.row_ptr[r]; s<m.row_ptr[r+1]; ++s){ long d=long(m.col[s])-r; lo=std::min(lo,d); hi=std::max(hi,d); if (std::abs(d)>32767) okrel=false; maxbw=std::max(maxbw,std::abs(d));}
      ++chunks; rel+=okrel; base += (hi-lo<=65535); }
    printf("%s %d csr %s: bandwidth %ld, 32-row chunks narrow from row %.3f, from chunk base %.3f\n", poly?"poly":"box", n, ord.c_str(), maxbw, double(rel)/chunks, double(base)/chunks);
  }
}
