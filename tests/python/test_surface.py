"""The package's public surface: a namespace of public names only, a real docstring on every public
callable, and messages that name the problem and the fix."""

import inspect
import types

import numpy as np
import pytest
import scipy.sparse as sp

import spx


def test_dir_shows_only_the_public_api():
    """`dir(spx)` used to show typing names, np, os, sys, math, warnings, ..."""
    public = [n for n in dir(spx) if not n.startswith("_")]
    assert sorted(public) == sorted(n for n in spx.__all__ if not n.startswith("_"))
    for name in dir(spx):
        obj = getattr(spx, name)
        if isinstance(obj, types.ModuleType):
            assert obj.__name__.startswith("spx."), f"spx.{name} is the module {obj.__name__}"
    for hidden in ("np", "os", "sys", "typing", "math", "warnings", "numbers", "Any", "Optional", "annotations"):
        assert not hasattr(spx, hidden), hidden


def _public_callables():
    for name in spx.__all__:
        obj = getattr(spx, name)
        if callable(obj):
            yield f"spx.{name}", obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and attr not in ("__init__", "__matmul__", "__rmatmul__"):
                        continue
                    target = member.fget if isinstance(member, property) else member
                    if callable(target):
                        yield f"spx.{name}.{attr}", target


@pytest.mark.parametrize("name,obj", list(_public_callables()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_public_callable_has_a_docstring(name, obj):
    if name.endswith(".__init__"):
        obj = getattr(spx, name.split(".")[1])  # a class's docstring documents its constructor
    doc = inspect.getdoc(obj)
    assert doc and doc.strip() and not doc.lstrip().startswith("#"), name


def test_help_shows_docstrings_not_comments():
    text = inspect.getdoc(spx.Matrix.cuda)
    assert text and "GPU" in text
    import pydoc

    page = pydoc.render_doc(spx.Matrix, renderer=pydoc.plaintext)
    assert "# ---" not in page  # section comments of the source never appear as documentation


def test_narrowing_b_in_cg_names_b_and_the_fix():
    """A float32 matrix with a float64 b used to say 'cast one of them (x.astype(...'."""
    A = spx.generate("stencil2d:n=4", dtype=np.float32)
    with pytest.raises(TypeError) as e:
        spx.cg(A, np.ones(16))
    msg = str(e.value)
    assert "b has dtype float64 but the matrix holds float32" in msg, msg
    assert "b.astype(np.float32)" in msg and "A.astype(np.float64)" in msg and "x.astype" not in msg
    with pytest.raises(TypeError, match=r"x0 has dtype float64 .*x0\.astype\(np\.float32\)"):
        spx.cg(A, np.ones(16, np.float32), x0=np.zeros(16))
    with pytest.raises(TypeError, match=r"x has dtype float64 .*x\.astype\(np\.float32\)"):
        A @ np.ones(16)


def test_to_cuda_without_a_gpu_says_no_cuda_gpu_is_available():
    """`A.cuda()` used to say "no GPU for 0"."""
    if spx.cuda_available():
        pytest.skip("a GPU is present")
    A = spx.generate("stencil2d:n=4")
    for move in (A.cuda, lambda: A.to("cuda:1")):
        with pytest.raises(RuntimeError) as e:
            move()
        msg = str(e.value)
        assert "no CUDA GPU is available" in msg and "spx.cuda_available()" in msg and "nvidia-smi" in msg, msg
        assert "no GPU for" not in msg and "cuda:" in msg


def test_cg_refuses_a_non_symmetric_matrix_up_front():
    """It used to run and return status 'breakdown'; the CLI refuses it (tools/spx/cmd_cg.cpp)."""
    S = spx.generate("stencil2d:n=6").to_scipy().tolil()
    S[2, 9] = -0.5  # A(2,9) = -0.5, A(9,2) = 0
    A = spx.Matrix(S.tocsr())
    with pytest.raises(ValueError) as e:
        spx.cg(A, np.ones(36))
    msg = str(e.value)
    assert "not symmetric" in msg and "A(2,9) = -0.5 but A(9,2) = 0" in msg and "check_symmetric=False" in msg, msg
    with pytest.raises(ValueError, match="not symmetric"):  # the answer is kept: the same again
        spx.cg(A, np.ones(36))
    with pytest.raises(ValueError, match="not symmetric"):  # scipy input too
        spx.cg(S.tocsr(), np.ones(36))
    x, info = spx.cg(A, np.ones(36), check_symmetric=False)  # opted out: it runs
    assert info.status in ("converged", "breakdown", "max_iterations", "stagnation")


def test_cg_symmetry_tolerance_is_relative_to_the_row():
    S = sp.csr_matrix(np.array([[4.0, 1.0, 0.0], [1.0 + 1e-9, 4.0, 1.0], [0.0, 1.0, 4.0]]))
    x, info = spx.cg(spx.Matrix(S), np.ones(3), rtol=1e-12)  # within 1e-6 of the row's largest: taken
    assert info.converged
    S2 = sp.csr_matrix(np.array([[4.0, 1.0, 0.0], [1.1, 4.0, 1.0], [0.0, 1.0, 4.0]]))
    with pytest.raises(ValueError, match=r"A\(0,1\) = 1 but A\(1,0\) = 1.1"):
        spx.cg(spx.Matrix(S2), np.ones(3))
    with pytest.raises(ValueError, match="square"):
        spx.cg(spx.Matrix(sp.random(3, 4, density=0.5)), np.ones(3))


def test_the_readme_python_example_runs_verbatim():
    """The README's example with what `pip install .` brings (NumPy, SciPy); its GPU lines run where
    a GPU is."""
    from conftest import REPO

    text = (REPO / "README.md").read_text()
    block = text.split("\n## Python\n")[1].split("```python\n")[1].split("```")[0]
    exec(compile(block, "README.md (Python example)", "exec"), {})
