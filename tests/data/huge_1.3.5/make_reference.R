# Reference values from R huge 1.3.5 (Debian r-cran-huge) for tests/test_huge.py
suppressMessages(library(huge))
out <- commandArgs(trailingOnly = TRUE)[1]
cases <- list(band = list(graph = "band", g = 2, v = NULL, u = NULL),
              hub = list(graph = "hub", g = 3, v = NULL, u = NULL),
              band_v05_u02 = list(graph = "band", g = 1, v = 0.5, u = 0.2))
for (name in names(cases)) {
  k <- cases[[name]]
  set.seed(1)
  L <- huge.generator(n = 5, d = 12, graph = k$graph, g = k$g, v = k$v, u = k$u, verbose = FALSE)
  for (what in c("omega", "sigma")) {
    write.table(format(L[[what]], digits = 17), file.path(out, paste0("huge_", name, "_", what, ".csv")),
                sep = ",", row.names = FALSE, col.names = FALSE, quote = FALSE)
  }
  write.table(as.matrix(L$theta), file.path(out, paste0("huge_", name, "_theta.csv")),
              sep = ",", row.names = FALSE, col.names = FALSE)
}
# scale-free: SFGen draws its d - 2 uniforms first (R::runif), so runif() after the same
# set.seed gives them; tests feed them to spdgraph's SFGen step
for (s in 1:3) {
  set.seed(s)
  L <- huge.generator(n = 5, d = 40, graph = "scale-free", verbose = FALSE)
  set.seed(s)
  u <- runif(40 - 2)
  write.table(as.matrix(L$theta), file.path(out, paste0("huge_scale_free_seed", s, "_theta.csv")),
              sep = ",", row.names = FALSE, col.names = FALSE)
  write.table(format(u, digits = 17), file.path(out, paste0("huge_scale_free_seed", s, "_u.csv")),
              row.names = FALSE, col.names = FALSE, quote = FALSE)
}
