"""The R side of the R bridge (:mod:`spdgraph.study._rbridge`): a loop over requests.

Requests arrive on R's standard input, replies leave on their own pipe
(``/dev/fd/{fd}``, the descriptor filled in when R starts). Integers are
little-endian int32, numbers little-endian float64, text UTF-8 after its
byte length. Opcodes: 0 quit; 1 define (id, packages, code) -> status and
R's and the packages' versions, or the error; 2 fit (id, n, p, seed, labels,
working folder, path, n*p numbers column-major on the pipe
or in the file at path) -> status, R's elapsed seconds, the result's form and
its numbers (0: p*p numbers column-major; 1, a Matrix sparse matrix: k, k row
and k column indices from 0 (int32), k numbers; 2, a two-column edge list: k,
2k numbers column-major, nodes from 1), or the error text.
"""

__all__ = ["SERVER"]

# The R side of the protocol. {fd} is the reply pipe's descriptor in the R process.
SERVER = r"""
local({
  .in <- file("stdin", "rb")
  .out <- suppressWarnings(file("/dev/fd/{fd}", "wb", raw = TRUE))
  .L <- new.env()
  rd <- function(what, k, size) {
    total <- k * size
    chunks <- list()
    got <- 0
    while (got < total) {  # a pipe gives what it holds: gather the chunks, join once
      v <- readBin(.in, "raw", min(total - got, 16777216))
      if (length(v) == 0L) quit(save = "no", status = 0L)
      chunks[[length(chunks) + 1L]] <- v
      got <- got + length(v)
    }
    bytes <- if (length(chunks) == 1L) chunks[[1L]] else unlist(chunks, use.names = FALSE)
    if (what == "raw") bytes else readBin(bytes, what, k, size = size, endian = "little")
  }
  rd_int <- function() rd("integer", 1L, 4L)
  rd_str <- function() {
    len <- rd_int()
    if (len == 0L) return("")
    rawToChar(rd("raw", len, 1L))
  }
  wr_int <- function(v) writeBin(as.integer(v), .out, size = 4L, endian = "little")
  wr_str <- function(s) {
    b <- charToRaw(enc2utf8(paste(s, collapse = "\n")))
    wr_int(length(b))
    writeBin(b, .out)
  }
  msg <- function(e) {
    call <- conditionCall(e)
    text <- if (is.null(call)) "" else paste(deparse(call, nlines = 1L), collapse = "")
    where <- if (text %in% c("", "snippet(x)") || startsWith(text, "doTryCatch")) "" else
      paste0(" in ", text)
    paste0("Error", where, ": ", conditionMessage(e))
  }
  repeat {
    op <- rd_int()
    if (op == 0L) quit(save = "no", status = 0L)
    if (op == 1L) {
      id <- rd_str(); pkgs <- rd_str(); code <- rd_str()
      res <- tryCatch({
        for (p in strsplit(pkgs, "\n", fixed = TRUE)[[1]])
          suppressPackageStartupMessages(library(p, character.only = TRUE))
        f <- eval(parse(text = paste0("function(x) {\n", code, "\n}")), envir = globalenv())
        assign(id, f, envir = .L)
        paste(c(R.version.string, vapply(strsplit(pkgs, "\n", fixed = TRUE)[[1]],
          function(p) paste0(p, " ", as.character(packageVersion(p))), "")), collapse = "\n")
      }, error = function(e) structure(msg(e), failed = TRUE))
      wr_int(if (is.null(attr(res, "failed"))) 0L else 1L)
      wr_str(res)
      flush(.out)
    } else if (op == 2L) {
      id <- rd_str(); n <- rd_int(); p <- rd_int(); seed <- rd_int(); labels <- rd_str()
      wd <- rd_str()  # the fit's scratch folder: relative paths land there
      path <- rd_str()  # "": the numbers follow on the pipe; else a file holds them
      x <- if (nzchar(path)) {
        con <- file(path, "rb")
        v <- readBin(con, "double", n * p, size = 8L, endian = "little")
        close(con)
        matrix(v, n, p)
      } else matrix(rd("double", n * p, 8L), n, p)
      colnames(x) <- strsplit(labels, "\n", fixed = TRUE)[[1]]
      set.seed(seed)  # the cell's learner seed: same draws whatever ran before in this R
      setwd(wd)  # before the clock: the fit's time is the snippet's alone
      t0 <- proc.time()[["elapsed"]]
      res <- tryCatch({
        snippet <- get(id, envir = .L)
        v <- snippet(x)
        if (inherits(v, "sparseMatrix")) {  # a Matrix sparse matrix: its stored entries
          if (nrow(v) != p || ncol(v) != p)
            stop(sprintf("the snippet returned a %d x %d sparse matrix; expected %d x %d",
                         nrow(v), ncol(v), p, p), call. = FALSE)
          v <- methods::as(methods::as(v, "generalMatrix"), "TsparseMatrix")
          list(form = 1L, i = v@i, j = v@j,
               x = if (methods::.hasSlot(v, "x")) as.double(v@x) else rep(1, length(v@i)))
        } else {
          if (!is.null(dim(v)) && length(dim(v)) == 2L) v <- as.matrix(v)
          if (!is.numeric(v) && !is.logical(v))
            stop(sprintf("the snippet returned a %s %s, not numbers (a %d x %d numeric matrix)",
                         typeof(v), paste(class(v), collapse = "/"), p, p), call. = FALSE)
          if (is.matrix(v) && ncol(v) == 2L && nrow(v) != p && is.numeric(v) &&
              all(is.finite(v)) && all(v >= 1) && all(v == round(v))) {  # an edge list
            list(form = 2L, k = nrow(v), x = as.double(v))
          } else {
            if (!is.matrix(v) || nrow(v) != p || ncol(v) != p)
              stop(sprintf("the snippet returned %s; expected a %d x %d matrix",
                           paste(class(v), collapse = "/"), p, p), call. = FALSE)
            storage.mode(v) <- "double"
            list(form = 0L, x = v)
          }
        }
      }, error = function(e) msg(e))
      secs <- proc.time()[["elapsed"]] - t0
      if (is.character(res)) { wr_int(1L); wr_str(res) } else {
        wr_int(0L)
        writeBin(as.double(secs), .out, size = 8L, endian = "little")
        wr_int(res$form)
        if (res$form == 1L) {
          wr_int(length(res$i))
          writeBin(as.integer(res$i), .out, size = 4L, endian = "little")
          writeBin(as.integer(res$j), .out, size = 4L, endian = "little")
        } else if (res$form == 2L) wr_int(res$k)
        writeBin(as.vector(res$x), .out, size = 8L, endian = "little")
      }
      flush(.out)
    }
  }
})
"""
