"""nbgrader preprocessors of the workbook."""

from nbconvert.preprocessors import Preprocessor


class StderrToStdout(Preprocessor):
    """Move every stderr stream output of a code cell to stdout.

    nbgrader gives 0 points to a test cell with any stderr output, so a deprecation warning
    from torch would zero a correct answer. The text stays visible in the feedback; only its
    stream changes. Exceptions are "error" outputs and keep failing the cell.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            for output in cell.get("outputs", []):
                if output.get("output_type") == "stream" and output.get("name") == "stderr":
                    output["name"] = "stdout"
        return cell, resources
