#!/usr/bin/env python3
# Build description for the richacl mapping library, its tools and its
# unit tests.  Run with the waf that ships in Debian's Samba source tree:
#     python3 $(testenv/samba-source.sh)/buildtools/bin/waf configure build
# (testenv/build.sh does exactly that).  The Samba VFS module is built inside
# the configured Samba tree by vfs_richacl/build.sh, because Samba's module
# rules exist only in Samba's own build.

import os

top = '.'
out = 'build'
APPNAME = 'richacl-mapping'
VERSION = '0.1'

WARNINGS = ['-Wall', '-Wextra', '-Wno-unused-parameter', '-Wshadow',
            '-Wmissing-prototypes', '-Wstrict-prototypes', '-Wformat=2',
            '-Werror=implicit-function-declaration', '-Werror=format-security']


def options(opt):
    opt.load('compiler_c')
    opt.add_option('--sanitize', action='store_true', default=False,
                   help='build with AddressSanitizer and UBSan')


def configure(conf):
    conf.load('compiler_c')
    conf.env.append_value('CFLAGS', ['-std=gnu11', '-O2', '-g', '-fPIC'] + WARNINGS)
    conf.env.append_value('DEFINES', ['_GNU_SOURCE'])
    if conf.options.sanitize:
        san = ['-fsanitize=address,undefined', '-fno-omit-frame-pointer']
        conf.env.append_value('CFLAGS', san)
        conf.env.append_value('LINKFLAGS', san)
    conf.check_cc(lib='cmocka', header_name='stdarg.h stddef.h setjmp.h cmocka.h',
                  uselib_store='CMOCKA', mandatory=True)
    conf.check_cc(header_name='sys/xattr.h', mandatory=True)


def build(bld):
    lib_src = bld.path.ant_glob('mapping/src/*.c')
    inc = ['mapping/include']
    bld.stlib(source=lib_src, target='richaclmap', includes=inc,
              export_includes=inc, name='richaclmap_static')
    bld.shlib(source=lib_src, target='richaclmap', includes=inc,
              export_includes=inc, name='richaclmap', vnum='0.1.0')

    for tool in bld.path.ant_glob('mapping/tools/*.c'):
        name = os.path.splitext(tool.name)[0]
        if name.startswith('tool_'):
            continue
        bld.program(source=[tool] + bld.path.ant_glob('mapping/tools/tool_*.c'),
                    target=name, use='richaclmap_static', includes=inc,
                    install_path='${PREFIX}/bin')

    for test in bld.path.ant_glob('mapping/tests/test_*.c'):
        name = os.path.splitext(test.name)[0]
        bld.program(source=[test] + bld.path.ant_glob('mapping/tests/helpers_*.c'),
                    target='tests/' + name, use='richaclmap_static CMOCKA',
                    includes=inc + ['mapping/tests'], install_path=None)

    # LD_PRELOAD shim emulating the kernel store rule for the tools' tests
    bld.shlib(source='mapping/tests/fake_richacl_fs.c', target='tests/fake_richacl_fs',
              use='richaclmap_static', includes=inc, install_path=None,
              linkflags=['-Wl,-Bsymbolic'])

    for prog in bld.path.ant_glob('bench/*.c'):
        name = os.path.splitext(prog.name)[0]
        bld.program(source=[prog], target='bench/' + name, use='richaclmap_static',
                    includes=inc, install_path=None)
