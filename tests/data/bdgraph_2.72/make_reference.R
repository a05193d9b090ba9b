# Reference graphs from R BDgraph 2.72 (Debian r-cran-bdgraph) for tests/test_graph_families.py
# Rscript make_reference.R OUTDIR
suppressMessages(library(BDgraph))
out <- commandArgs(trailingOnly = TRUE)[1]
save <- function(G, name) {
  write.table(unclass(G) * 1, file.path(out, paste0(name, ".csv")), sep = ",",
              row.names = FALSE, col.names = FALSE)
}
save(graph.sim(p = 16, graph = "lattice"), "lattice_p16")
save(graph.sim(p = 14, graph = "lattice", size = c(3, 4)), "lattice_p14_3x4")
save(graph.sim(p = 11, graph = "lattice"), "lattice_p11")
save(graph.sim(p = 9, graph = "circle"), "circle_p9")
for (g in c("AR1", "AR2", "circle")) {
  set.seed(1)
  sim <- bdgraph.sim(p = 10, n = 5, graph = g)
  save(sim$G, paste0("bdgraph_sim_", g, "_p10"))
}
