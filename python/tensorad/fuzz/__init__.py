"""A differential fuzzer for tensorad: random programs checked against numpy and finite differences.

``python -m tensorad.fuzz --programs 500 --ir 200`` generates random
``tensorad.numpy`` / ``lax`` / ``nn`` programs (:mod:`.programs`) and random
``tad`` / upstream IR (:mod:`.ir`), runs each in a worker process
(:mod:`.runner`) so that an abort is counted instead of killing the fuzzer,
judges the results (:mod:`.checks`), shrinks each distinct failure to a
minimal reproducer and writes it to a folder (:mod:`.campaign`).

Examples
--------
>>> from tensorad.fuzz.programs import generate, render
>>> print(render(generate(1)).splitlines()[0])
def f(v0):
"""
