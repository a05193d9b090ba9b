# Reference output of R huge 1.3.5 for tests/test_huge_reference.py.
# Run from this folder: Rscript make_select_reference.R
# Writes <case>_x.csv (the data, n rows by p columns) and <case>.json (huge's
# grid, glasso path, log-likelihoods, EBIC and StARS selections with huge's
# defaults: nlambda = 10, lambda.min.ratio = 0.1, stars.thresh = 0.1,
# rep.num = 20, ebic.gamma = 0.5), and huge.select's StARS subsamples
# (0-based row indices), replayed and checked against its variability.
suppressMessages({library(huge); library(jsonlite)})
stopifnot(as.character(packageVersion("huge")) == "1.3.5")

upper_edges <- function(a) {
  a <- as.matrix(a)
  w <- which(a != 0 & upper.tri(a), arr.ind = TRUE)
  w <- w[order(w[, 1], w[, 2]), , drop = FALSE]
  unname(w - 1L)  # 0-based (row, col), row < col
}

cases <- list(
  list(name = "hub_p20_n150", graph = "hub", d = 20, n = 150, g = 4, seed = 101),
  list(name = "random_p25_n200", graph = "random", d = 25, n = 200, g = NULL, seed = 202),
  list(name = "cluster_p12_n100", graph = "cluster", d = 12, n = 100, g = 3, seed = 303)
)
for (case in cases) {
  set.seed(case$seed)
  sim <- if (is.null(case$g)) {
    huge.generator(n = case$n, d = case$d, graph = case$graph, verbose = FALSE)
  } else {
    huge.generator(n = case$n, d = case$d, graph = case$graph, g = case$g, verbose = FALSE)
  }
  x <- round(sim$data, 6)  # the stored data are these rounded values
  write.table(x, paste0(case$name, "_x.csv"), sep = ",", row.names = FALSE,
              col.names = FALSE)
  x <- as.matrix(read.csv(paste0(case$name, "_x.csv"), header = FALSE))
  fit <- huge(x, method = "glasso", verbose = FALSE)
  s <- cor(x)
  ebic <- huge.select(fit, criterion = "ebic", verbose = FALSE)
  set.seed(case$seed + 1)
  stars <- huge.select(fit, criterion = "stars", verbose = FALSE)
  # huge.select's subsamples, replayed (huge.glasso draws no random numbers)
  set.seed(case$seed + 1)
  ratio <- if (nrow(x) > 144) 10 * sqrt(nrow(x)) / nrow(x) else 0.8
  subsamples <- lapply(1:20, function(i) sample(c(1:nrow(x)), floor(nrow(x) * ratio)))
  merge <- lapply(fit$lambda, function(l) 0)
  for (rows in subsamples) {
    sub <- huge.glasso(x[rows, ], lambda = fit$lambda, verbose = FALSE)$path
    merge <- Map(function(m, a) m + as.matrix(a), merge, sub)
  }
  replayed <- sapply(merge, function(m) {
    m <- m / 20
    4 * sum(m * (1 - m)) / (ncol(x) * (ncol(x) - 1))
  })
  stopifnot(isTRUE(all.equal(replayed, stars$variability)))
  out <- list(
    huge_version = as.character(packageVersion("huge")),
    n = nrow(x), p = ncol(x), graph = case$graph,
    lambda = fit$lambda,
    path_edges = lapply(fit$path, upper_edges),
    loglik = fit$loglik,
    # log det(icov) - tr(cor(x) icov): the log-likelihood as spdgraph writes it
    loglik_plain = sapply(fit$icov, function(k) {
      as.numeric(determinant(k, logarithm = TRUE)$modulus) - sum(s * k)
    }),
    df = fit$df,
    ebic_score = ebic$ebic.score,
    ebic_index = ebic$opt.index - 1L,
    stars_variability = stars$variability,
    stars_index = stars$opt.index - 1L,
    stars_edges = upper_edges(stars$refit),
    stars_subsamples = lapply(subsamples, function(r) r - 1L),
    truth_edges = upper_edges(sim$theta)
  )
  write(toJSON(out, digits = I(17), auto_unbox = TRUE), paste0(case$name, ".json"))
}
