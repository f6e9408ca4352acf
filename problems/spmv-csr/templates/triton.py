import triton
import triton.language as tl


@triton.jit
def spmv(row_ptr, col_idx, values, x, y, rows, nnz, BLOCK: tl.constexpr):
    # TODO: y[r] = sum of values[j] * x[col_idx[j]] for j in row_ptr[r] .. row_ptr[r + 1] - 1 (float32).
    # Rows are uneven (some hold thousands of entries, many none): split the work by rows (a loop
    # over each row's entries) or by entries (find each entry's row, then tl.atomic_add into y,
    # which holds the judge's poison until written).
    pass


def solution(row_ptr, col_idx, values, x, y, rows, cols, nnz):
    # row_ptr: rows + 1 int32; col_idx: nnz int32; values: nnz float32; x: cols float32; y: rows float32.
    BLOCK = 1024
    spmv[(triton.cdiv(rows, BLOCK),)](row_ptr, col_idx, values, x, y, rows, nnz, BLOCK=BLOCK)
