#!/usr/bin/env python3
"""Writes the binary polyMesh seeds of the polymesh fuzz harness (polymesh/binary_*): boxes of
one and two hexahedra in OpenFOAM's binary format (arch "LSB;label=32;scalar=64"; each face a
binary labelList inside an ASCII faceList, as OpenFOAM's List writer puts a non-contiguous list),
the five files joined by form feeds. Their labels stay under 12, so no byte is a form feed.

    tests/fuzz/seeds/make_binary_polymesh.py    # rewrites tests/fuzz/seeds/polymesh/binary_*
"""
import pathlib
import struct


def header(class_name, name):
    return (f'FoamFile\n{{\n    version     2.0;\n    format      binary;\n    arch        "LSB;label=32;scalar=64";\n'
            f'    class       {class_name};\n    object      {name};\n}}\n\n').encode()


def labels(values):
    """A binary labelList: the size, then '(' raw int32s ')', or the size alone when empty."""
    out = f'\n{len(values)}\n'.encode()
    return out + b'(' + b''.join(struct.pack('<i', v) for v in values) + b')' if values else out


def row_of_hexes(nx):
    """nx unit hexahedra along x: points, faces (internal first, upper-triangular), owner, neighbour."""
    index = lambda i, j, k: (k * 2 + j) * (nx + 1) + i
    points = [(i, j, k) for k in (0, 1) for j in (0, 1) for i in range(nx + 1)]
    faces, owner, neighbour = [], [], []
    for c in range(nx - 1):
        faces.append([index(c + 1, 0, 0), index(c + 1, 1, 0), index(c + 1, 1, 1), index(c + 1, 0, 1)])
        owner.append(c)
        neighbour.append(c + 1)
    faces.append([index(0, 0, 0), index(0, 0, 1), index(0, 1, 1), index(0, 1, 0)])
    owner.append(0)
    faces.append([index(nx, 0, 0), index(nx, 1, 0), index(nx, 1, 1), index(nx, 0, 1)])
    owner.append(nx - 1)
    for c in range(nx):
        for face in ([index(c, 0, 0), index(c + 1, 0, 0), index(c + 1, 0, 1), index(c, 0, 1)],
                     [index(c, 1, 0), index(c, 1, 1), index(c + 1, 1, 1), index(c + 1, 1, 0)],
                     [index(c, 0, 0), index(c, 1, 0), index(c + 1, 1, 0), index(c + 1, 0, 0)],
                     [index(c, 0, 1), index(c + 1, 0, 1), index(c + 1, 1, 1), index(c, 1, 1)]):
            faces.append(face)
            owner.append(c)
    return points, faces, owner, neighbour


def main():
    here = pathlib.Path(__file__).resolve().parent / 'polymesh'
    here.mkdir(exist_ok=True)
    for nx, name in ((1, 'binary_one_cell'), (2, 'binary_two_cells')):
        points, faces, owner, neighbour = row_of_hexes(nx)
        files = [
            header('vectorField', 'points') + f'\n{len(points)}\n('.encode() +
            b''.join(struct.pack('<3d', *p) for p in points) + b')\n',
            header('faceList', 'faces') + f'\n{len(faces)}\n(\n'.encode() + b''.join(labels(f) for f in faces) + b'\n)\n',
            header('labelList', 'owner') + labels(owner) + b'\n',
            header('labelList', 'neighbour') + labels(neighbour) + b'\n',
            header('polyBoundaryMesh', 'boundary') +
            f'1\n(\n    walls\n    {{\n        type wall;\n        nFaces {len(faces) - len(neighbour)};\n'
            f'        startFace {len(neighbour)};\n    }}\n)\n'.encode(),
        ]
        data = b'\f'.join(files)
        assert data.count(b'\f') == 4, f'{name}: a byte of the binary data is a form feed'
        (here / name).write_bytes(data)


if __name__ == '__main__':
    main()
