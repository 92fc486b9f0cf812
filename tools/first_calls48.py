"""First call (compile included) of session 48's slow programs (docs/performance.md, "Compile
times, session 48"); one program per process: python tools/first_calls48.py NAME, with
JITCORE_CACHE=0 and PYTHONPATH naming the tree. The programs are the users' own text (hence
the noqa)."""
# ruff: noqa: B007, E501, E702

import sys
import time
import warnings

import numpy as np

import jitcore as jc

warnings.simplefilter("ignore")

def kabsch(P, Q):
    cp = P.mean(0); cq = Q.mean(0)
    H = (P - cp).T @ (Q - cq)
    U, S, Vt = np.linalg.svd(H)
    d = np.sign(np.linalg.det(Vt.T @ U.T))
    D = np.diag([1.0, 1.0, d])
    R = Vt.T @ D @ U.T
    t = cq - R @ cp
    return R, t

def icp(src, dst, iters=20, tol=1e-9):
    cur = src.copy()
    R_tot = np.eye(3); t_tot = np.zeros(3)
    prev_err = np.inf
    err = np.inf
    for i in range(iters):
        d2 = np.sum((cur[:, None, :] - dst[None, :, :]) ** 2, axis=2)
        j = np.argmin(d2, axis=1)
        err = np.mean(np.sqrt(d2[np.arange(cur.shape[0]), j]))
        if abs(prev_err - err) < tol:
            break
        prev_err = err
        R, t = kabsch(cur, dst[j])
        cur = cur @ R.T + t
        R_tot = R @ R_tot
        t_tot = R @ t_tot + t
    return R_tot, t_tot, err, i

def estimate_normals(P, k):
    d2 = np.sum((P[:, None] - P[None]) ** 2, -1)
    nbr = np.argsort(d2, axis=1)[:, :k]
    N = np.zeros_like(P)
    for i in range(P.shape[0]):
        Q = P[nbr[i]]
        Q = Q - Q.mean(0)
        w, v = np.linalg.eigh(Q.T @ Q)
        n = v[:, 0]
        if n[2] < 0:
            n = -n
        N[i] = n
    return N

def min_jerk_lstsq(waypoints, times, n):
    T = np.vander(times, 6, increasing=True)
    coef, res, rank, sv = np.linalg.lstsq(T, waypoints, rcond=None)
    t = np.linspace(times[0], times[-1], n)
    return np.vander(t, 6, increasing=True) @ coef, rank

def planar_jacobian(thetas, lengths):
    n = thetas.shape[0]
    J = np.zeros((2, n))
    cum = np.cumsum(thetas)
    for i in range(n):
        J[0, i] = -np.sum(lengths[i:] * np.sin(cum[i:]))
        J[1, i] = np.sum(lengths[i:] * np.cos(cum[i:]))
    return J

def planar_ik_dls(target, thetas0, lengths, lam=0.1, max_iter=300, tol=1e-6):
    th = thetas0.copy()
    it = 0
    err_norm = np.inf
    while it < max_iter:
        cum = np.cumsum(th)
        p = np.array([np.sum(lengths * np.cos(cum)), np.sum(lengths * np.sin(cum))])
        e = target - p
        err_norm = np.linalg.norm(e)
        if err_norm < tol:
            break
        J = planar_jacobian(th, lengths)
        dth = J.T @ np.linalg.solve(J @ J.T + lam**2 * np.eye(2), e)
        th += dth
        it += 1
    return th, it, err_norm

def mc_choice_resample(w, n, seed):
    rng = np.random.default_rng(seed)
    w = w / w.sum()
    idx = rng.choice(len(w), size=n, p=w)
    return np.bincount(idx, minlength=len(w))

def rollout_list(x0, A, B, U, iters):
    for it in range(iters):
        xs = [x0]
        x = x0
        for k in range(U.shape[0]):
            x = A @ x + B @ U[k]
            xs.append(x)
        U = U * 0.9 + 0.01 * xs[-1][0]
    return U

def mpc_list(x0, A, B, N, iters, lr):
    m = B.shape[1]
    U = np.zeros((N, m))
    for it in range(iters):
        xs = [x0]
        x = x0
        for k in range(N):
            x = A @ x + B @ U[k]
            xs.append(x)
        lam = 2 * xs[-1]
        G = np.zeros_like(U)
        for k in range(N - 1, -1, -1):
            G[k] = 2 * 0.1 * U[k] + B.T @ lam
            lam = 2 * xs[k] + A.T @ lam
        U -= lr * G
    cost = sum(float(x @ x) for x in xs) + 0.1 * float((U * U).sum())
    return U, cost

rng = np.random.default_rng(5)
def rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
P = rng.normal(size=(40, 3)); Q = P @ rot(0.1).T + 0.05
A2 = np.array([[1.0, 0.1], [0.0, 1.0]]); B2 = np.array([[0.0], [0.1]])
CASES = {
    "icp": (icp, (P, Q)),
    "estimate_normals": (estimate_normals, (P, 8)),
    "min_jerk_lstsq": (min_jerk_lstsq, (np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0], [4.0, 4.0], [5.0, 5.0], [6.0, 5.0], [7.0, 4.0]]), np.linspace(0, 6, 7), 30)),
    "planar_ik_dls": (planar_ik_dls, (np.array([1.2, 0.9]), np.array([0.1, 0.1, 0.1]), np.array([1.0, 0.8, 0.5]))),
    "mc_choice_resample": (mc_choice_resample, (rng.random(10), 100, 3)),
    "rollout_list": (rollout_list, (np.array([1.0, 0.0]), A2, B2, np.zeros((10, 1)), 10)),
    "mpc_list": (mpc_list, (np.array([1.0, 0.0]), A2, B2, 10, 50, 0.05)),
}
if __name__ == "__main__":
    name = sys.argv[1]
    f, args = CASES[name]
    jf = jc.jit(f)
    t0 = time.perf_counter(); r = jf(*args); t1 = time.perf_counter()
    calls = []
    for _ in range(7):
        s = time.perf_counter(); jf(*args); calls.append(time.perf_counter() - s)
    print(f"{name} first {t1 - t0:.2f} s call {sorted(calls)[3] * 1e3:.3f} ms", flush=True)
