# Append this rule to workflow/rules/data/iid/rules.smk of a benchpress checkout:
# it draws Gaussian data from the covariance CSV the spdgraph_po module writes.
rule sample_spdgraph_po_data:
    input:
        "workflow/rules/parameters/spdgraph_po/data.py",
        cov="{output_dir}/parameters/spdgraph_po/{bn}/adjmat=/{adjmat}.csv",
    output:
        data="{output_dir}/data"
        "/adjmat=/{adjmat}"
        "/parameters=/spdgraph_po/{bn}"
        "/data=/" + pattern_strings["iid"] + "/seed={seed}.csv",
    wildcard_constraints:
        n="[0-9]*",
    container:
        None
    conda:
        "../../parameters/spdgraph_po/spdgraph.yml"
    script:
        "../../parameters/spdgraph_po/data.py"
