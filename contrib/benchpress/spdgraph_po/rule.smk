# benchpress parameters module: a covariance matrix whose graph is exactly the
# input graph, sampled by spdgraph (partial orthogonalization by default).
rule:
    name:
        module_name
    input:
        adjmat="{output_dir}/adjmat/{adjmat}.csv",
    output:
        params="{output_dir}/parameters/"
        + pattern_strings[module_name]
        + "/"
        "seed={seed}/"
        + "adjmat=/{adjmat}.csv",
    container:
        None
    conda:
        "spdgraph.yml"
    script:
        "script.py"
