# Constant arguments narrow a call's targets: after open(READ) the file can be read.
from file import READ, WRITE, File

APPEND = 2


def client():
    f = File()
    f.open(READ)
    f.read()
    f.close()
    f.open(mode=WRITE)
    f.write(3)


def client_literal():
    f = File()
    f.open(1)
    f.read()


def client_bad():
    f = File()
    f.open(WRITE)
    f.read()  # expect: typestate-call


def client_module_constant():
    f = File()
    f.open(APPEND)
    f.read()  # expect: typestate-call
