"""The S-W suite: what a Windows client sees (docs/smb-semantics.md, S-W rows).

Runs as root inside the QEMU guest, like run.py and verdict.py, against the
in-guest smbd of testenv/smb/server.sh started with --test-shares.  Each row
builds its fixture as root, acts over SMB as a test user, and checks the
NTSTATUS, what the client reads back, and the state on disk.  Expected
results are those of a Windows server (MS-DTYP, MS-FSA), never what the
code under test printed.

  S-W-fa     a file that inherits Full Control (FILE_ALL_ACCESS, OI) reads
             back FILE_ALL_ACCESS, as on Windows, although the kernel's
             inheritance drops delete_child (meaningless on a file); Modify
             (0x1301bf) stays Modify; the DACL read can be set back.
  S-W-plain  [rplain]: vfs_richacl on a file system without richacl support.
             The DACL the module shows for a mode-only file (0644, 0600, a
             0755 directory) can be set back unchanged: OK, same mode.  A
             DACL no mode can express is refused (NOT_SUPPORTED) and changes
             nothing.
  S-W-apply  [rapply] ("richacl:chmod = apply", "store dos attributes = no",
             so that smbd chmods every new file to its create mask): a file
             created there keeps the inherited acl in full, as on [richacl];
             a local chmod still applies to it.
  S-W-owner  with write_owner, bob may take alice's file but not give it to
             carol: STATUS_INVALID_OWNER, as Windows answers without
             SeRestorePrivilege; the owner is unchanged.
  S-W-creator the creating handle has the access its create asked for, as
             on Windows, although the inherited acl grants the creator
             nothing: a new directory opened for listing; a new file and a
             new directory created delete-on-close are gone after the close,
             where neither the parent's delete_child nor the new object's
             delete is granted.  No other handle gains anything, the acl is
             left as inherited (also for a hard link that survives), and
             the kernel still refuses the creator a local listing.
  S-W-rmdir  an empty directory is removed through the parent's
             delete_child by a user who may not list it (as a local rmdir
             by him succeeds); a non-empty one answers
             DIRECTORY_NOT_EMPTY and stays; the listing stays refused; no
             delete_child, or a sticky parent, and the directory stays.
  S-W-exec   an open for FILE_EXECUTE without FILE_READ_DATA succeeds where
             the acl grants execute and not read_data (Windows grants it; the
             kernel has no execute-only open); a read through the handle is
             refused, as the kernel refuses the user's local read; the
             MAXIMUM_ALLOWED open succeeds too; without execute nothing
             opens.  A directory that grants add but not list opens for
             FILE_ADD_FILE and GENERIC_WRITE, and stays unlistable.
  S-W-lock   a handle that may write but not read (and one that may only
             append) takes shared and exclusive byte-range locks, as on
             Windows (smbd backs a shared lock with an F_RDLCK fcntl lock,
             which a write-only descriptor cannot hold); the shared lock
             still conflicts with another client's exclusive lock until it
             is released; reading through the handle stays refused.
  S-W-merge  a create with a security descriptor whose DACL is not
             protected gets the entries it inherits from its parent after
             the descriptor's own, marked inherited (Windows merges them,
             MS-DTYP 2.5.3.4.2 ComputeACL with DACL_AUTO_INHERIT; smbd
             applies the descriptor as sent): a protected DACL is kept as
             sent, ACEs the creator marked inherited are dropped, a
             defaulted DACL gives way to the inherited entries, and a
             parent that passes nothing on leaves the DACL as sent.
  S-W-overwrite an open that overwrites an existing file needs what Windows
             asks: FILE_WRITE_DATA, FILE_WRITE_EA and FILE_WRITE_ATTRIBUTES
             (FILE_OVERWRITE, FILE_OVERWRITE_IF), and a supersede DELETE as
             well; without one of them the open is refused and the file
             keeps its contents.  A create through FILE_OVERWRITE_IF of a
             name that does not exist needs only the directory's add_file.
             (A supersede without FILE_WRITE_DATA, which Windows grants,
             stays refused: smbd truncates, which needs write_data.)
  S-W-stream creating a named stream needs FILE_WRITE_DATA on the file
             (MS-FSA 2.1.5.1.2), on [rstreams] (streams_xattr above richacl):
             bob, who may write the file's named attributes but not its
             data, cannot create f:s, not even for a handle that only
             reads (FILE_CREATE, FILE_OPEN_IF) or reads attributes
             (FILE_SUPERSEDE, FILE_OVERWRITE_IF); with write_data he can,
             and reads it back.
  S-W-ea     extended attributes need FILE_WRITE_EA / FILE_READ_EA on the
             handle, and, stricter than Windows, write_data / read_data in
             the kernel (user.* xattrs also hold streams and the DOS
             attributes): bob with write_data and FILE_WRITE_EA sets an EA;
             with FILE_WRITE_EA alone his set is refused; with write_data
             alone he cannot open for it; the same for reading. EAs named
             like smbd's stream and DOS attribute xattrs are refused.
  S-W-null   a NULL DACL set over SMB reads back as a NULL DACL, as on
             Windows, while the kernel holds
             everyone@ allowed everything (M10) and grants everybody the
             same; an explicit "Everyone: Full Control" reads back as that
             ACE; a local chmod that cuts the masks shows the real acl; a
             user cannot forge the marker, and a marker on another acl
             changes nothing.  Where smbd's own code mishandles a NULL DACL
             ([rinhown]: directories under inherit acls + inherit owner;
             [rfruit]: vfs_fruit stacked above) Everyone: Full Control shows,
             and a create under such a directory works.  A marker that
             does not fit (no xattr space left) leaves the DACL set, is
             logged, and Everyone: Full Control shows.
  S-W-m8     an ACE names its SID for good (M8): after bob takes ownership
             of alice's file, alice's ACE still grants alice, and bob gets
             only his own ACE, over SMB and locally.  OWNER RIGHTS is the
             entry that follows the owner (owner@): its allow and deny bind
             the owner in the kernel as in smbd, and after a chown they
             bind the new owner.  The acl gets the flag owner_rights, with
             which the kernel, like smbd, lets the owner change the acl or
             the mode only as the entries allow, also after a chown; owner@
             then reads back as OWNER RIGHTS.  The flag alone shows an
             OWNER RIGHTS ACE that grants nothing; what smbd creates under
             an inheritable OWNER RIGHTS ACE inherits it (a local create
             does not); a DACL without OWNER RIGHTS drops it.
  S-W-mask   a user whom a chmod leaves without entries (E4 of
             algorithms.md 4.11: user:bob:rw, chmod 604) stays in the group
             class: the DACL shown denies him the read that Everyone gets
             and the kernel refuses him, also after it is set back.

Output: "ok ID desc" / "FAIL ID desc: details" lines and "N passed, N failed".

usage: windows.py --state DIR --path DIR --plain-path DIR [--tools DIR]
                  [--identity passdb|winbind] [--only ID...]
"""

import ctypes
import errno
import os
import struct

from impacket import nt_errors, smb3structs, smbconnection
from impacket.smb3structs import SMB2_DIALECT_21
from samba.dcerpc import security
from samba.ndr import ndr_pack

import run
import verdict
from run import FULL_DIR, OK, SetupError

FILE_SUPERSEDE = 0
NOT_SUPPORTED = "NT_STATUS_NOT_SUPPORTED"
NOT_EMPTY = "NT_STATUS_DIRECTORY_NOT_EMPTY"
INVALID_OWNER = "NT_STATUS_INVALID_OWNER"
FILE_MODIFY = 0x001301bf        # Explorer's "Modify"
EXECUTE = security.SEC_FILE_EXECUTE
MAXIMUM_ALLOWED = security.SEC_FLAG_MAXIMUM_ALLOWED
GENERIC_WRITE = security.SEC_GENERIC_WRITE
ADD_FILE = security.SEC_DIR_ADD_FILE
MODIFY = "rwpxDaARWcS"          # the same as richacl text
PLAIN_SHARE = "rplain"          # testenv/smb/smbconf.sh --test-shares
NULL_MARKER = "security.richacl.null_dacl"
OLD_OWNER_RIGHTS_MARKER = "security.richacl.owner_rights"   # before the acl flag
NO_XATTR = f"<{os.strerror(errno.ENODATA)}>"   # run.Suite.xattr() of a missing one


class Windows(verdict.Verdict):
    ROWS = ["S-W-fa", "S-W-plain", "S-W-apply", "S-W-owner", "S-W-creator", "S-W-rmdir",
            "S-W-exec", "S-W-lock", "S-W-merge", "S-W-null", "S-W-m8", "S-W-mask",
            "S-W-overwrite", "S-W-stream", "S-W-ea"]

    def __init__(self, args):
        super().__init__(args)
        self.plain_root = args.plain_path

    # ---- helpers

    def get_sd_on(self, share, user, rel):
        """(status, descriptor) of rel on share, read as user."""
        c = self.conn_on(user, share)
        st, fnum = self.smb(c.create, self.w(rel), DesiredAccess=run.READ_CONTROL,
                            ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_OPEN,
                            CreateOptions=0)
        if st != OK:
            return st, None
        try:
            info = security.SECINFO_OWNER | security.SECINFO_GROUP | security.SECINFO_DACL
            return self.smb(c.get_sd, fnum, info)
        finally:
            self.smb(c.close, fnum)

    def put_sd_on(self, share, user, rel, sd):
        """Write sd's DACL back to rel on share as user; the status."""
        c = self.conn_on(user, share)
        st, fnum = self.smb(c.create, self.w(rel),
                            DesiredAccess=run.READ_CONTROL | run.WRITE_DAC,
                            ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_OPEN,
                            CreateOptions=0)
        if st != OK:
            return st
        try:
            return self.smb(c.set_sd, fnum, sd, security.SECINFO_DACL)[0]
        finally:
            self.smb(c.close, fnum)

    @staticmethod
    def aces_of(sd):
        return [(str(a.trustee), a.type, a.flags, a.access_mask)
                for a in (sd.dacl.aces if sd is not None and sd.dacl else [])]

    @staticmethod
    def show(aces):
        return ", ".join(f"{t}/{ty}/0x{f:x}/0x{m:x}" for t, ty, f, m in aces)

    def plain(self, rel):
        return os.path.join(self.plain_root, rel)

    def plain_state(self, rel):
        st = os.lstat(self.plain(rel))
        try:
            xattr = os.getxattr(self.plain(rel), "system.richacl")
        except OSError as e:
            xattr = f"<{os.strerror(e.errno)}>"
        return (st.st_uid, oct(st.st_mode & 0o7777), xattr)

    # ---- rows

    def s_w_fa(self):
        """S-W-fa: inherited Full Control reads back as FILE_ALL_ACCESS."""
        row = "S-W-fa"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        carol = self.sids["carol"]
        self.mkdir("wfa", f"flags:a owner@:{FULL_DIR}::allow everyone@:{FULL_DIR}:fd:allow "
                   f"user:carol:{MODIFY}:f:allow", owner=1001)
        st = self.smb_create_file("alice", "wfa/f", b"data\n")
        self.expect_smb(row, "alice creates wfa\\f", OK, st)
        st, sd = self.get_sd_on("richacl", "alice", "wfa/f")
        self.expect_smb(row, "alice reads wfa\\f's descriptor", OK, st)
        aces = self.aces_of(sd)
        want = [(run.SID_EVERYONE, A, run.INHERITED_ACE, run.FILE_ALL_ACCESS),
                (carol, A, run.INHERITED_ACE, FILE_MODIFY)]
        self.expect_state(row, "Everyone: Full Control (0x1f01ff), carol: Modify (0x1301bf), "
                          "both inherited", aces == want, self.show(aces))
        # the kernel holds no delete_child on the file: the mapping shows it
        entries = self.aclentries("wfa/f")[1]
        self.expect_state(row, "the kernel's inherited entry has no delete_child",
                          any(e[0] == "everyone@" and "d" not in e[1] for e in entries),
                          f"{entries}")
        if sd is not None:
            st = self.put_sd_on("richacl", "alice", "wfa/f", sd)
            self.expect_smb(row, "alice sets the descriptor she read back", OK, st)
            st, sd2 = self.get_sd_on("richacl", "alice", "wfa/f")
            self.expect_state(row, "and reads the same ACEs again", self.aces_of(sd2) == want,
                              self.show(self.aces_of(sd2)))
        # Full Control works for a user with no other entry, over SMB and locally
        st, _ = self.smb_write_at("bob", "wfa/f", run.WRITE_DATA, b"bob", 0)
        self.expect_smb(row, "bob writes wfa\\f (Everyone: Full Control)", OK, st)
        self.expect_local(row, "bob opens wfa/f for writing (kernel)", "OK",
                          self.local("bob", lambda: os.close(os.open(self.p("wfa/f"),
                                                                     os.O_WRONLY))))

    def s_w_plain(self):
        """S-W-plain: a displayed DACL can be set back where richacls cannot be stored."""
        row = "S-W-plain"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        if not os.path.isdir(self.plain_root):
            raise SetupError(f"{self.plain_root} does not exist")
        for name, mode, isdir in (("p644", 0o644, False), ("p600", 0o600, False),
                                  ("d755", 0o755, True)):
            path = self.plain(name)
            if isdir:
                os.makedirs(path, exist_ok=True)
            else:
                with open(path, "wb") as f:
                    f.write(b"plain\n")
            os.chown(path, 1001, 1001)
            os.chmod(path, mode)
            before = self.plain_state(name)
            st, sd = self.get_sd_on(PLAIN_SHARE, "alice", name)
            self.expect_smb(row, f"alice reads {name}'s descriptor on [{PLAIN_SHARE}]", OK, st)
            if sd is None:
                continue
            st = self.put_sd_on(PLAIN_SHARE, "alice", name, sd)
            self.expect_smb(row, f"alice sets {name}'s descriptor back unchanged", OK, st)
            self.expect_state(row, f"{name}: owner, mode {oct(mode)}, no richacl",
                              self.plain_state(name) == before, f"{self.plain_state(name)}")
            st, sd2 = self.get_sd_on(PLAIN_SHARE, "alice", name)
            self.expect_state(row, f"{name}: the descriptor reads back the same",
                              self.aces_of(sd2) == self.aces_of(sd),
                              f"{self.show(self.aces_of(sd))} -> {self.show(self.aces_of(sd2))}")
            # error path: an entry for bob is no mode
            sd.dacl_add(self._ace(self.sids["bob"], 0, run.FILE_GENERIC_READ, A))
            st = self.put_sd_on(PLAIN_SHARE, "alice", name, sd)
            self.expect_smb(row, f"a DACL with an entry for bob on {name} is refused",
                            NOT_SUPPORTED, st)
            self.expect_state(row, f"{name}: unchanged after the refusal",
                              self.plain_state(name) == before, f"{self.plain_state(name)}")

    def s_w_apply(self):
        """S-W-apply: smbd's post-create chmod never cuts an inherited acl."""
        row = "S-W-apply"
        self.mkdir("wap", f"flags:a owner@:{FULL_DIR}::allow everyone@:{run.RX_DIR}:fd:allow "
                   f"user:carol:rwpaRWcS:f:allow", owner=1001)
        for share, name in (("richacl", "wap/plain"), ("rapply", "wap/applied")):
            c = self.conn_on("alice", share)
            st, fnum = self.smb(c.create, self.w(name),
                                DesiredAccess=run.WRITE_DATA | run.READ_ATTRIBUTES,
                                ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_CREATE,
                                CreateOptions=run.FILE_NON_DIRECTORY_FILE)
            self.expect_smb(row, f"alice creates {name} on [{share}]", OK, st)
            if st == OK:
                self.smb(c.close, fnum)
        plain = self.acltext("wap/plain", "--raw", "--numeric-ids").split("\n", 1)[-1]
        applied = self.acltext("wap/applied", "--raw", "--numeric-ids").split("\n", 1)[-1]
        self.expect_state(row, "the same inherited acl, masks included, on both shares",
                          plain == applied and "1003" in applied,
                          f"[richacl]: {plain!r}; [rapply]: {applied!r}")
        self.expect_local(row, "carol opens wap/applied for writing (kernel)", "OK",
                          self.local("carol", lambda: os.close(os.open(self.p("wap/applied"),
                                                                       os.O_WRONLY))))
        # a local chmod is a chmod: it cuts carol's write (the kernel's masks)
        os.chmod(self.p("wap/applied"), 0o600)
        self.expect_local(row, "after a local chmod 0600 carol may no longer write", "DENIED",
                          self.local("carol", lambda: os.close(os.open(self.p("wap/applied"),
                                                                       os.O_WRONLY))))

    def s_w_owner(self):
        """S-W-owner: write_owner takes ownership, never gives it away."""
        row = "S-W-owner"
        self.mkdir("wown", f"everyone@:{run.RX_DIR}::allow")
        self.mkfile("wown/f", acl=f"owner@:{run.FULL_FILE}::allow user:bob:o{run.R_FILE}::allow",
                    owner=1001)
        before = self.state_of("wown/f")
        st = self.set_sd_on("bob", "wown/f", security.SEC_STD_WRITE_OWNER,
                            security.SECINFO_OWNER, owner=self.sids["carol"])
        self.expect_smb(row, "bob gives alice's file to carol", INVALID_OWNER, st)
        self.expect_state(row, "owner, group, mode and acl unchanged",
                          self.state_of("wown/f") == before, f"{self.state_of('wown/f')}")
        st = self.set_sd_on("bob", "wown/f", security.SEC_STD_WRITE_OWNER,
                            security.SECINFO_OWNER, owner=self.sids["bob"])
        self.expect_smb(row, "bob takes it himself", OK, st)
        self.expect_state(row, "bob owns it", self.owner("wown/f") == 1002,
                          f"uid {self.owner('wown/f')}")

    def create(self, user, rel, access, options, disposition=run.FILE_CREATE):
        """(status, fnum) of a create by user on [richacl]."""
        return self.smb(self.conn_on(user, "richacl").create, self.w(rel),
                        DesiredAccess=access, ShareAccess=run.SHARE_ALL,
                        CreateDisposition=disposition, CreateOptions=options)

    def local_listdir(self, user, rel):
        return self.local(user, lambda: os.listdir(self.p(rel)))

    def s_w_creator(self):
        """S-W-creator: the creating handle has the access it asked for."""
        row = "S-W-creator"
        list_dir = run.READ_DATA | run.READ_ATTRIBUTES | run.SYNCHRONIZE
        # alice may add files and subdirectories, not delete them; what she
        # creates inherits only a file entry (inherit-only on a directory)
        self.mkdir("wcr", "everyone@:rwpxaRcS::allow user:alice:waRcS:f:allow")
        st, fnum = self.create("alice", "wcr/d", list_dir, run.FILE_DIRECTORY_FILE)
        self.expect_smb(row, "alice creates wcr\\d, opened for listing", OK, st)
        if st == OK:
            self.smb(self.conn_on("alice", "richacl").close, fnum)
        self.expect_state(row, "wcr/d exists, owned by alice",
                          self.exists("wcr/d") and self.owner("wcr/d") == 1001,
                          f"exists {self.exists('wcr/d')}")
        before = self.aclentries("wcr/d")
        self.expect_state(row, "its acl is the inherited one: one inherit-only entry",
                          len(before[1]) == 1 and "i" in before[1][0][2], f"{before}")
        st, _ = self.create("alice", "wcr/d", list_dir, run.FILE_DIRECTORY_FILE, run.FILE_OPEN)
        self.expect_smb(row, "a second open of wcr\\d for listing (not the creator's)",
                        run.DENIED, st)
        self.expect_local(row, "alice lists wcr/d locally (kernel)", "DENIED",
                          self.local_listdir("alice", "wcr/d"))
        self.expect_state(row, "wcr/d's acl unchanged", self.aclentries("wcr/d") == before,
                          f"{self.aclentries('wcr/d')}")

        # delete-on-close on the creator's handle: a file, then a directory
        doc = run.DELETE | run.WRITE_DATA | run.READ_ATTRIBUTES | run.SYNCHRONIZE
        st, fnum = self.create("alice", "wcr/f", doc,
                               run.FILE_NON_DIRECTORY_FILE | run.FILE_DELETE_ON_CLOSE)
        self.expect_smb(row, "alice creates wcr\\f delete-on-close", OK, st)
        if st == OK:
            self.smb(self.conn_on("alice", "richacl").write, fnum, b"data\n", 0)
            st = self.smb(self.conn_on("alice", "richacl").close, fnum)[0]
            self.expect_smb(row, "and closes it", OK, st)
        self.expect_state(row, "wcr/f is gone", not self.exists("wcr/f"), "it exists")
        st, fnum = self.create("alice", "wcr/dd", run.DELETE | list_dir,
                               run.FILE_DIRECTORY_FILE | run.FILE_DELETE_ON_CLOSE)
        self.expect_smb(row, "alice creates directory wcr\\dd delete-on-close", OK, st)
        if st == OK:
            self.smb(self.conn_on("alice", "richacl").close, fnum)
        self.expect_state(row, "wcr/dd is gone", not self.exists("wcr/dd"), "it exists")

        # a hard link made meanwhile survives, with the acl as inherited
        st, fnum = self.create("alice", "wcr/l", doc,
                               run.FILE_NON_DIRECTORY_FILE | run.FILE_DELETE_ON_CLOSE)
        self.expect_smb(row, "alice creates wcr\\l delete-on-close", OK, st)
        if st == OK:
            inherited = self.aclentries("wcr/l")
            os.link(self.p("wcr/l"), self.p("wcr/l2"))
            self.smb(self.conn_on("alice", "richacl").close, fnum)
            self.expect_state(row, "wcr/l is gone, its hard link wcr/l2 stays",
                              not self.exists("wcr/l") and self.exists("wcr/l2"),
                              f"l {self.exists('wcr/l')}, l2 {self.exists('wcr/l2')}")
            self.expect_state(row, "wcr/l2 has the inherited acl, no entry added",
                              self.aclentries("wcr/l2") == inherited,
                              f"{inherited} -> {self.aclentries('wcr/l2')}")
            st, _ = self.create("alice", "wcr/l2", run.DELETE, run.FILE_NON_DIRECTORY_FILE,
                                run.FILE_OPEN)
            self.expect_smb(row, "alice opens wcr\\l2 for DELETE (not the creator's handle)",
                            run.DENIED, st)
            self.expect_local(row, "alice unlinks wcr/l2 locally (kernel)", "DENIED",
                              self.local("alice", lambda: os.unlink(self.p("wcr/l2"))))
        # not the creator: a file alice created earlier keeps its acl's verdict
        st = self.smb_create_file("alice", "wcr/k", b"kept\n")
        self.expect_smb(row, "alice creates wcr\\k (no delete-on-close)", OK, st)
        st, _ = self.create("alice", "wcr/k", run.DELETE, run.FILE_NON_DIRECTORY_FILE,
                            run.FILE_OPEN)
        self.expect_smb(row, "alice reopens wcr\\k for DELETE", run.DENIED, st)
        self.expect_state(row, "wcr/k stays", self.exists("wcr/k"), "it is gone")

    def open_dir_for_delete(self, user, rel):
        """(status, fnum) of an open of the existing directory rel for DELETE;
        no SYNCHRONIZE: the parent's delete_child stands in for DELETE only."""
        return self.create(user, rel, run.DELETE | run.READ_ATTRIBUTES,
                           run.FILE_DIRECTORY_FILE, run.FILE_OPEN)

    def s_w_rmdir(self):
        """S-W-rmdir: the parent's delete_child removes a directory one may not list."""
        row = "S-W-rmdir"
        c = self.conn_on("bob", "richacl")
        self.mkdir("wrd", "everyone@:rwpxdaRcS::allow")
        for name in ("e", "n", "local"):
            self.mkdir(f"wrd/{name}", f"owner@:{FULL_DIR}::allow", owner=1003)
        self.mkfile("wrd/n/inside", owner=1003)
        self.expect_local(row, "bob may not list carol's wrd/e (kernel)", "DENIED",
                          self.local_listdir("bob", "wrd/e"))
        self.expect_local(row, "bob removes carol's empty wrd/local with rmdir (kernel)", "OK",
                          self.local("bob", lambda: os.rmdir(self.p("wrd/local"))))
        st, fnum = self.open_dir_for_delete("bob", "wrd/e")
        self.expect_smb(row, "bob opens carol's wrd\\e for DELETE", OK, st)
        if st == OK:
            st = self.smb(c.delete_on_close, fnum, 1)[0]
            self.expect_smb(row, "and sets delete-on-close on the empty directory", OK, st)
            self.smb(c.close, fnum)
        self.expect_state(row, "wrd/e is gone", not self.exists("wrd/e"), "it exists")
        st, fnum = self.open_dir_for_delete("bob", "wrd/n")
        self.expect_smb(row, "bob opens carol's non-empty wrd\\n for DELETE", OK, st)
        if st == OK:
            st = self.smb(c.delete_on_close, fnum, 1)[0]
            # Windows: DIRECTORY_NOT_EMPTY.  smbd lstat()s each entry as
            # bob, who may not traverse carol's directory: ACCESS_DENIED.
            self.expect_smb_any(row, "delete-on-close on a non-empty directory is refused",
                                [NOT_EMPTY, run.DENIED], st)
            self.smb(c.close, fnum)
        self.expect_state(row, "wrd/n and wrd/n/inside stay", self.exists("wrd/n/inside"),
                          "gone")
        st, _ = self.create("bob", "wrd/n", run.READ_DATA | run.SYNCHRONIZE,
                            run.FILE_DIRECTORY_FILE, run.FILE_OPEN)
        self.expect_smb(row, "bob still may not open wrd\\n for listing", run.DENIED, st)

        # delete-on-close set and cleared again: the directory stays (as on
        # Windows, the answer tells bob whether it is empty)
        self.mkdir("wrd/k", f"owner@:{FULL_DIR}::allow", owner=1003)
        st, fnum = self.open_dir_for_delete("bob", "wrd/k")
        if st == OK:
            st = self.smb(c.delete_on_close, fnum, 1)[0]
            self.expect_smb(row, "bob sets delete-on-close on carol's empty wrd\\k", OK, st)
            st = self.smb(c.delete_on_close, fnum, 0)[0]
            self.expect_smb(row, "and clears it again", OK, st)
            self.smb(c.close, fnum)
        self.expect_state(row, "wrd/k stays", self.exists("wrd/k"), "gone")

        # delete_child revoked while bob holds his DELETE handle (attack I)
        self.mkdir("wrv", "everyone@:rwpxdaRcS::allow")
        self.mkdir("wrv/e", f"owner@:{FULL_DIR}::allow", owner=1003)
        st, fnum = self.open_dir_for_delete("bob", "wrv/e")
        self.expect_smb(row, "bob opens carol's wrv\\e for DELETE", OK, st)
        self.setacl("wrv", "everyone@:rwpxaRcS::allow")
        self.expect_local(row, "after root took delete_child away, bob's local rmdir", "DENIED",
                          self.local("bob", lambda: os.rmdir(self.p("wrv/e"))))
        if st == OK:
            st = self.smb(c.delete_on_close, fnum, 1)[0]
            self.expect_smb(row, "bob's delete-on-close through the old handle", run.DENIED, st)
            self.smb(c.close, fnum)
        self.expect_state(row, "wrv/e stays", self.exists("wrv/e"), "gone")

        # no delete_child for bob: nothing to delete with
        self.mkdir("wrx", "everyone@:rwpxaRcS::allow")
        self.mkdir("wrx/e", f"owner@:{FULL_DIR}::allow", owner=1003)
        st, fnum = self.open_dir_for_delete("bob", "wrx/e")
        self.expect_smb(row, "without delete_child bob may not open wrx\\e for DELETE",
                        run.DENIED, st)
        if st == OK:
            self.smb(c.close, fnum)
        self.expect_state(row, "wrx/e stays", self.exists("wrx/e"), "gone")

        # a sticky parent: delete_child is not enough for bob (kernel rule)
        self.mkdir("wrs", "everyone@:rwpxdaRcS::allow")
        os.chmod(self.p("wrs"), os.stat(self.p("wrs")).st_mode | 0o1000)
        self.mkdir("wrs/e", f"owner@:{FULL_DIR}::allow", owner=1003)
        self.expect_local(row, "bob's local rmdir of wrs/e in a sticky directory", "DENIED",
                          self.local("bob", lambda: os.rmdir(self.p("wrs/e"))))
        st, fnum = self.open_dir_for_delete("bob", "wrs/e")
        if st == OK:
            st = self.smb(c.delete_on_close, fnum, 1)[0]
            self.smb(c.close, fnum)
        self.expect_smb_any(row, "bob's delete of wrs/e is refused (open or delete-on-close)",
                            [run.DENIED], st)
        self.expect_state(row, "wrs/e stays", self.exists("wrs/e"), "gone")

    def s_w_exec(self):
        """S-W-exec: an execute-only handle exists; reading through it does not."""
        row = "S-W-exec"
        c = self.conn_on("bob", "richacl")
        exe = EXECUTE | run.READ_ATTRIBUTES | run.SYNCHRONIZE
        self.mkdir("wex", f"everyone@:{run.RX_DIR}::allow")
        self.mkfile("wex/f", b"#!/bin/sh\necho hi\n",
                    acl=f"owner@:{run.FULL_FILE}::allow user:bob:xaRcS::allow", owner=1001)
        self.mkfile("wex/n", acl=f"owner@:{run.FULL_FILE}::allow user:bob:aRcS::allow",
                    owner=1001)
        self.expect_local(row, "bob may execute wex/f (kernel access X_OK)", "OK",
                          self.local("bob", lambda: self.must_access("wex/f", os.X_OK)))
        self.expect_local(row, "bob may not read wex/f locally (kernel)", "EACCES",
                          self.local("bob", lambda: open(self.p("wex/f"), "rb").close()))
        before = self.state_of("wex/f")
        st, fnum = self.create("bob", "wex/f", exe, run.FILE_NON_DIRECTORY_FILE, run.FILE_OPEN)
        self.expect_smb(row, "bob opens wex\\f for FILE_EXECUTE without read", OK, st)
        if st == OK:
            rst, _ = self.smb(c.read, fnum, 0, 10)
            self.expect_smb(row, "a read through that handle", run.DENIED, rst)
            self.smb(c.close, fnum)
        st, fnum = self.create("bob", "wex/f", exe, run.FILE_NON_DIRECTORY_FILE,
                               run.FILE_OPEN_IF)
        self.expect_smb(row, "bob opens the existing wex\\f with FILE_OPEN_IF", OK, st)
        if st == OK:
            self.smb(c.close, fnum)
        st, _ = self.create("bob", "wex/new", exe, run.FILE_NON_DIRECTORY_FILE,
                            run.FILE_OPEN_IF)
        self.expect_smb(row, "FILE_OPEN_IF of a new wex\\new (no add_file)", run.DENIED, st)
        self.expect_state(row, "wex/new was not created", not self.exists("wex/new"), "exists")
        st, fnum = self.create("bob", "wex/f", MAXIMUM_ALLOWED, run.FILE_NON_DIRECTORY_FILE,
                               run.FILE_OPEN_IF)
        self.expect_smb(row, "bob opens wex\\f for MAXIMUM_ALLOWED (FILE_OPEN_IF)", OK, st)
        if st == OK:
            rst, _ = self.smb(c.read, fnum, 0, 10)
            self.expect_smb(row, "a read through the MAXIMUM_ALLOWED handle", run.DENIED, rst)
            self.smb(c.close, fnum)
        st, fnum = self.create("bob", "wex/n", exe, run.FILE_NON_DIRECTORY_FILE, run.FILE_OPEN)
        self.expect_smb(row, "without execute bob may not open wex\\n for FILE_EXECUTE",
                        run.DENIED, st)
        if st == OK:
            self.smb(c.close, fnum)
        st, fnum = self.create("carol", "wex/f", exe, run.FILE_NON_DIRECTORY_FILE,
                               run.FILE_OPEN)
        self.expect_smb(row, "carol (no entry) may not open wex\\f for FILE_EXECUTE",
                        run.DENIED, st)
        if st == OK:
            self.smb(self.conn_on("carol", "richacl").close, fnum)
        self.expect_state(row, "wex/f unchanged (owner, mode, acl)",
                          self.state_of("wex/f") == before, f"{self.state_of('wex/f')}")

        # a directory bob may add to but not list (GENERIC_WRITE on a directory)
        self.mkdir("wex/d", f"owner@:{FULL_DIR}::allow user:bob:wpxaAWRcS::allow", owner=1001)
        add = ADD_FILE | run.READ_ATTRIBUTES | run.SYNCHRONIZE
        st, fnum = self.create("bob", "wex/d", add, run.FILE_DIRECTORY_FILE, run.FILE_OPEN)
        self.expect_smb(row, "bob opens wex\\d for FILE_ADD_FILE without list", OK, st)
        if st == OK:
            self.smb(c.close, fnum)
        st, fnum = self.create("bob", "wex/d", GENERIC_WRITE, run.FILE_DIRECTORY_FILE,
                               run.FILE_OPEN)
        self.expect_smb(row, "bob opens wex\\d for GENERIC_WRITE", OK, st)
        if st == OK:
            self.smb(c.close, fnum)
        st, _ = self.create("bob", "wex/d", run.READ_DATA | run.SYNCHRONIZE,
                            run.FILE_DIRECTORY_FILE, run.FILE_OPEN)
        self.expect_smb(row, "bob may not open wex\\d for listing", run.DENIED, st)
        self.expect_local(row, "bob may not list wex/d locally (kernel)", "DENIED",
                          self.local_listdir("bob", "wex/d"))
        st, _ = self.create("carol", "wex/d", add, run.FILE_DIRECTORY_FILE, run.FILE_OPEN)
        self.expect_smb(row, "carol (no entry) may not open wex\\d for FILE_ADD_FILE",
                        run.DENIED, st)
        st, fnum = self.create("bob", "wex/d/new", run.WRITE_DATA | run.SYNCHRONIZE,
                               run.FILE_NON_DIRECTORY_FILE)
        self.expect_smb(row, "bob creates wex\\d\\new", OK, st)
        if st == OK:
            self.smb(c.close, fnum)

    # SMB2 LOCK through impacket (python3-samba's client has no lock call,
    # and impacket's SMB3.lock() builds its lock array as a str)
    SHARED = smb3structs.SMB2_LOCKFLAG_SHARED_LOCK | smb3structs.SMB2_LOCKFLAG_FAIL_IMMEDIATELY
    EXCLUSIVE = (smb3structs.SMB2_LOCKFLAG_EXCLUSIVE_LOCK |
                 smb3structs.SMB2_LOCKFLAG_FAIL_IMMEDIATELY)
    UNLOCK = smb3structs.SMB2_LOCKFLAG_UNLOCK

    def raw_conn(self, user, share="richacl"):
        conn = smbconnection.SMBConnection("127.0.0.1", "127.0.0.1",
                                           preferredDialect=SMB2_DIALECT_21, timeout=60)
        conn.login(user, self.passwords[user])
        return conn, conn.connectTree(share)

    @staticmethod
    def raw_status(exc):
        code = exc.getErrorCode() if hasattr(exc, "getErrorCode") else \
            exc.get_error_code() if hasattr(exc, "get_error_code") else None
        if code is None:
            return f"{type(exc).__name__}: {exc}"
        return "NT_" + nt_errors.ERROR_MESSAGES.get(code, (f"0x{code:08x}",))[0]

    def raw_open(self, conn, tid, rel, access):
        """(status, file id) of an open of rel for access."""
        try:
            return OK, conn.createFile(tid, rel.replace("/", "\\"), desiredAccess=access,
                                       shareMode=7, creationOption=run.FILE_NON_DIRECTORY_FILE,
                                       creationDisposition=run.FILE_OPEN)
        except smbconnection.SessionError as e:
            return self.raw_status(e), None

    def raw_lock(self, conn, tid, fid, offset, length, flags):
        """NTSTATUS name of one SMB2 LOCK request."""
        smb = conn._SMBConnection
        element = smb3structs.SMB2_LOCK_ELEMENT()
        element["Offset"], element["Length"], element["Flags"] = offset, length, flags
        body = smb3structs.SMB2Lock()
        body["FileID"] = fid
        body["LockCount"] = 1
        body["LockSequence"] = 0
        body["Locks"] = element.getData()
        packet = smb.SMB_PACKET()
        packet["Command"] = smb3structs.SMB2_LOCK
        packet["TreeID"] = tid
        packet["Data"] = body
        answer = smb.recvSMB(smb.sendSMB(packet))
        code = answer["Status"]
        return "NT_" + nt_errors.ERROR_MESSAGES.get(code, (f"0x{code:08x}",))[0]

    def raw_read(self, conn, tid, fid):
        try:
            conn.readFile(tid, fid, 0, 4)
            return OK
        except smbconnection.SessionError as e:
            return self.raw_status(e)

    def s_w_lock(self):
        """S-W-lock: write-only and append-only handles take shared locks."""
        row = "S-W-lock"
        lock_ok = "NT_STATUS_SUCCESS"
        not_granted = "NT_STATUS_LOCK_NOT_GRANTED"
        self.mkdir("wlk", f"everyone@:{run.RX_DIR}::allow")
        self.mkfile("wlk/f", b"0123456789abcdef",
                    acl=f"owner@:{run.FULL_FILE}::allow user:bob:wpaRcS::allow "
                        f"user:carol:paRcS::allow",
                    owner=1001)
        before = self.state_of("wlk/f")
        sync = run.SYNCHRONIZE | run.READ_ATTRIBUTES
        try:
            bob, btid = self.raw_conn("bob")
            carol, ctid = self.raw_conn("carol")
            alice, atid = self.raw_conn("alice")
        except Exception as e:          # noqa: BLE001 - reported as a failure
            self.expect_smb(row, "bob, carol and alice connect with impacket", OK,
                            self.raw_status(e))
            return
        st, bfid = self.raw_open(bob, btid, "wlk/f", run.WRITE_DATA | sync)
        self.expect_smb(row, "bob opens wlk\\f for FILE_WRITE_DATA without read", OK, st)
        if st != OK:
            return
        self.expect_smb(row, "a shared lock on bob's write-only handle",
                        lock_ok, self.raw_lock(bob, btid, bfid, 0, 8, self.SHARED))
        self.expect_smb(row, "an exclusive lock on bob's write-only handle (another range)",
                        lock_ok, self.raw_lock(bob, btid, bfid, 8, 8, self.EXCLUSIVE))
        self.expect_smb(row, "a read through bob's handle stays refused",
                        run.DENIED, self.raw_read(bob, btid, bfid))
        st, afid = self.raw_open(alice, atid, "wlk/f", run.READ_DATA | run.WRITE_DATA | sync)
        self.expect_smb(row, "alice opens wlk\\f for read and write", OK, st)
        if st == OK:
            self.expect_smb(row, "alice's exclusive lock conflicts with bob's shared lock",
                            not_granted, self.raw_lock(alice, atid, afid, 0, 8, self.EXCLUSIVE))
            self.expect_smb(row, "alice's shared lock on the same range is granted", lock_ok,
                            self.raw_lock(alice, atid, afid, 0, 8, self.SHARED))
            self.raw_lock(alice, atid, afid, 0, 8, self.UNLOCK)
        self.expect_smb(row, "bob releases his shared lock", lock_ok,
                        self.raw_lock(bob, btid, bfid, 0, 8, self.UNLOCK))
        if st == OK:
            self.expect_smb(row, "then alice's exclusive lock is granted", lock_ok,
                            self.raw_lock(alice, atid, afid, 0, 8, self.EXCLUSIVE))
            alice.closeFile(atid, afid)
        bob.closeFile(btid, bfid)

        st, cfid = self.raw_open(carol, ctid, "wlk/f", run.APPEND_DATA | sync)
        self.expect_smb(row, "carol opens wlk\\f for FILE_APPEND_DATA only", OK, st)
        if st == OK:
            self.expect_smb(row, "a shared lock on carol's append-only handle", lock_ok,
                            self.raw_lock(carol, ctid, cfid, 0, 4, self.SHARED))
            self.expect_smb(row, "carol releases it", lock_ok,
                            self.raw_lock(carol, ctid, cfid, 0, 4, self.UNLOCK))
            carol.closeFile(ctid, cfid)
        self.expect_state(row, "wlk/f unchanged (owner, mode, acl)",
                          self.state_of("wlk/f") == before, f"{self.state_of('wlk/f')}")

    def raw_create_sd(self, conn, tid, rel, sd, directory=False):
        """NTSTATUS name of a create of rel with sd in an SMB2 SecD create
        context (as a Windows client sends one); the handle is closed."""
        data = ndr_pack(sd)
        ctx = smb3structs.SMB2CreateContext()
        ctx["Next"] = 0
        ctx["NameOffset"] = 16
        ctx["NameLength"] = 4
        ctx["DataOffset"] = 24
        ctx["DataLength"] = len(data)
        ctx["Buffer"] = b"SecD" + b"\0" * 4 + data
        options = run.FILE_DIRECTORY_FILE if directory else run.FILE_NON_DIRECTORY_FILE
        try:
            fid = conn._SMBConnection.create(
                tid, rel.replace("/", "\\"),
                run.READ_CONTROL | run.READ_ATTRIBUTES | run.SYNCHRONIZE, 7, options,
                run.FILE_CREATE, 0, createContexts=[ctx])
        except smbconnection.SessionError as e:
            return self.raw_status(e)
        except Exception as e:          # noqa: BLE001 - impacket raises its own
            return self.raw_status(e)
        conn.closeFile(tid, fid)
        return OK

    def s_w_merge(self):
        """S-W-merge: a create's unprotected DACL gets the inherited entries."""
        row = "S-W-merge"
        alice, carol, bob = self.sids["alice"], self.sids["carol"], self.sids["bob"]
        self.mkdir("wmg", f"flags:a owner@:{run.FULL_DIR}:fd:allow "
                          f"user:bob:{run.RX_DIR}:fd:allow everyone@:{run.RX_DIR}::allow",
                   owner=1001)
        self.mkdir("wmg0", f"owner@:{run.FULL_DIR}::allow everyone@:{run.RX_DIR}::allow",
                   owner=1001)
        try:
            conn, tid = self.raw_conn("alice")
        except Exception as e:          # noqa: BLE001 - reported as a failure
            self.expect_smb(row, "alice connects with impacket", OK, self.raw_status(e))
            return

        def sd_of(sddl, extra_type=0):
            sd = security.descriptor.from_sddl(sddl, security.dom_sid(alice.rsplit("-", 1)[0]))
            sd.type |= extra_type
            return sd

        def dacl(rel):
            st, sd = self.smb_get_sd("alice", rel)
            if st != OK or sd.dacl is None:
                return st, None, []
            return st, sd.type, [(str(a.trustee), a.flags, a.access_mask, a.type)
                                 for a in sd.dacl.aces]

        def has(aces, sid, inherited, mask):
            return any(t == sid and bool(f & run.INHERITED_ACE) == inherited and m & mask == mask
                       and a == security.SEC_ACE_TYPE_ACCESS_ALLOWED for t, f, m, a in aces)

        read = run.FILE_GENERIC_READ

        def as_sent(rel, desc):
            """rel's DACL is alice full + carol read, as sent, nothing inherited."""
            st, typ, aces = dacl(rel)
            self.expect_state(row, desc, st == OK and [(a[0], a[1], a[2]) for a in aces] ==
                              [(alice, 0, run.FILE_ALL_ACCESS), (carol, 0, read)],
                              f"{st} {typ} {aces}")

        # 1. explicit alice + carol, not protected: bob's inherited entry follows
        st = self.raw_create_sd(conn, tid, "wmg/f1", sd_of(
            f"D:(A;;0x1f01ff;;;{alice})(A;;0x120089;;;{carol})"))
        self.expect_smb(row, "alice creates wmg\\f1 with an unprotected DACL (alice, carol)",
                        OK, st)
        st, typ, aces = dacl("wmg/f1")
        explicit = [a for a in aces if not a[1] & run.INHERITED_ACE]
        self.expect_state(row, "f1: the two explicit ACEs come first, as sent",
                          st == OK and [(a[0], a[2]) for a in aces[:2]] ==
                          [(alice, run.FILE_ALL_ACCESS), (carol, read)] and len(explicit) == 2,
                          f"{st} {aces}")
        self.expect_state(row, "f1: then bob's entry, marked inherited, and the DACL "
                          "auto-inherited", st == OK and has(aces[2:], bob, True, read) and
                          typ & security.SEC_DESC_DACL_AUTO_INHERITED, f"{st} {typ} {aces}")
        self.expect_smb(row, "bob reads f1 (the inherited entry)", OK,
                        self.smb_open("bob", "wmg/f1", read)[0])
        self.expect_local(row, "bob reads f1 locally", "OK",
                          self.l_open("bob", "wmg/f1", os.O_RDONLY))
        self.expect_smb(row, "carol reads f1 (the explicit entry)", OK,
                        self.smb_open("carol", "wmg/f1", read)[0])
        # 2. protected: as sent
        st = self.raw_create_sd(conn, tid, "wmg/f2", sd_of(f"D:P(A;;0x1f01ff;;;{alice})"))
        self.expect_smb(row, "alice creates wmg\\f2 with a protected DACL", OK, st)
        st, typ, aces = dacl("wmg/f2")
        self.expect_state(row, "f2: only alice's ACE, protected",
                          st == OK and [(a[0], a[1], a[2]) for a in aces] ==
                          [(alice, 0, run.FILE_ALL_ACCESS)] and
                          typ & security.SEC_DESC_DACL_PROTECTED, f"{st} {typ} {aces}")
        self.expect_smb(row, "bob may not read f2", run.DENIED,
                        self.smb_open("bob", "wmg/f2", read)[0])
        self.expect_local(row, "bob may not read f2 locally", "EACCES",
                          self.l_open("bob", "wmg/f2", os.O_RDONLY))
        # 3. an ACE the creator marked inherited is dropped
        st = self.raw_create_sd(conn, tid, "wmg/f3", sd_of(
            f"D:(A;;0x1f01ff;;;{alice})(A;ID;0x120089;;;{carol})"))
        self.expect_smb(row, "alice creates wmg\\f3 with an ACE for carol marked inherited",
                        OK, st)
        st, typ, aces = dacl("wmg/f3")
        self.expect_state(row, "f3: carol's ACE is gone, bob's inherited entry is there",
                          st == OK and not any(a[0] == carol for a in aces) and
                          has(aces, bob, True, read), f"{st} {aces}")
        self.expect_smb(row, "carol may not read f3", run.DENIED,
                        self.smb_open("carol", "wmg/f3", read)[0])
        # 4. defaulted: the inherited entries only
        st = self.raw_create_sd(conn, tid, "wmg/f4", sd_of(
            f"D:(A;;0x1f01ff;;;{carol})", security.SEC_DESC_DACL_DEFAULTED))
        self.expect_smb(row, "alice creates wmg\\f4 with a defaulted DACL (carol)", OK, st)
        st, typ, aces = dacl("wmg/f4")
        self.expect_state(row, "f4: only inherited ACEs, bob's among them",
                          st == OK and aces and all(a[1] & run.INHERITED_ACE for a in aces) and
                          has(aces, bob, True, read) and not any(a[0] == carol for a in aces),
                          f"{st} {aces}")
        # 4b. OWNER RIGHTS in a defaulted DACL, or marked inherited, gives way
        # to the inherited entries, and with it the acl flag owner_rights;
        # an explicit one keeps it.  Under wmg the inherited owner@ entry
        # (CREATOR OWNER's: the creator's SID) grants alice write_acl, as on
        # Windows, so she may chmod every one of them; under wmg0 nothing is
        # inherited and OWNER RIGHTS read alone leaves her no write_acl.
        for rel, sddl, extra, want, chmod in (
                ("wmg/o1", f"D:(A;;0x120089;;;OW)(A;;0x1f01ff;;;{carol})",
                 security.SEC_DESC_DACL_DEFAULTED, False, "OK"),
                ("wmg/o2", f"D:(A;;0x1f01ff;;;{alice})(A;ID;0x120089;;;OW)", 0, False, "OK"),
                ("wmg/o3", f"D:(A;;0x120089;;;{alice})(A;;0x120089;;;OW)", 0, True, "OK"),
                ("wmg0/o4", f"D:(A;;0x120089;;;{alice})(A;;0x120089;;;OW)", 0, True,
                 "DENIED")):
            st = self.raw_create_sd(conn, tid, rel, sd_of(sddl, extra))
            self.expect_smb(row, f"alice creates {rel} with {sddl}", OK, st)
            flags = self.aclentries(rel)[0]
            self.expect_state(row, f"{rel}: the flag owner_rights is "
                              f"{'set' if want else 'not set'}", ("o" in flags) == want,
                              f"flags {flags!r}")
            self.expect_local(row, f"{rel}: alice (owner) chmods it locally", chmod,
                              self.local("alice", lambda: os.chmod(self.p(rel), 0o640)))
        # 5. a directory: its own inheritable ACE first, the inherited ones after
        st = self.raw_create_sd(conn, tid, "wmg/d1", sd_of(f"D:(A;OICI;0x1f01ff;;;{alice})"),
                                directory=True)
        self.expect_smb(row, "alice creates directory wmg\\d1 with an unprotected DACL",
                        OK, st)
        st, typ, aces = dacl("wmg/d1")
        self.expect_state(row, "d1: alice's ACE first, then bob's inherited one, "
                          "inheritable further",
                          st == OK and aces and aces[0][0] == alice and
                          not aces[0][1] & run.INHERITED_ACE and
                          any(t == bob and f & run.INHERITED_ACE and f & run.OI and f & run.CI
                              for t, f, _, _ in aces), f"{st} {aces}")
        self.expect_smb(row, "alice creates d1\\g without a descriptor", OK,
                        self.smb_create_file("alice", "wmg/d1/g", b"g\n"))
        self.expect_smb(row, "bob reads d1\\g (inherited through d1)", OK,
                        self.smb_open("bob", "wmg/d1/g", read)[0])
        # 6. nothing inheritable: as sent
        st = self.raw_create_sd(conn, tid, "wmg0/f", sd_of(
            f"D:(A;;0x1f01ff;;;{alice})(A;;0x120089;;;{carol})"))
        self.expect_smb(row, "alice creates wmg0\\f (no inheritable entries above)", OK, st)
        as_sent("wmg0/f", "wmg0\\f: exactly the two ACEs sent, none inherited")
        # 7. what the merge adds does not fit in the xattr space: as sent
        many = " ".join(f"user:{5000 + i}:r:fd:allow" for i in range(320))
        self.mkdir("wmgbig", f"flags:a owner@:{run.FULL_DIR}:fd:allow {many}", owner=1001)
        sent = "".join(f"(A;;0x120089;;;S-1-22-1-{6000 + i})" for i in range(30))
        st = self.raw_create_sd(conn, tid, "wmgbig/f", sd_of(
            f"D:(A;;0x1f01ff;;;{alice}){sent}"))
        self.expect_smb(row, "alice creates wmgbig\\f where explicit + 320 inherited "
                        "entries do not fit", OK, st)
        st, typ, aces = dacl("wmgbig/f")
        self.expect_state(row, "wmgbig\\f: the 31 ACEs as sent, none inherited",
                          st == OK and len(aces) == 31 and
                          not any(a[1] & run.INHERITED_ACE for a in aces) and
                          aces[0][0] == alice, f"{st} {len(aces)} {aces[:3]}")
        self.expect_log(row, "wmgbig/f: the merge that did not fit is logged",
                        "wmgbig/f: the DACL with the inherited entries")
        conn.close()
        # 8. "richacl:fix create masks = no": no merge (the kernel's
        # create-mode masks would not hold for merged entries)
        try:
            nconn, ntid = self.raw_conn("alice", "rnofix")
        except Exception as e:          # noqa: BLE001 - reported as a failure
            self.expect_smb(row, "alice connects to [rnofix] with impacket", OK,
                            self.raw_status(e))
            return
        st = self.raw_create_sd(nconn, ntid, "wmg/nofix", sd_of(
            f"D:(A;;0x1f01ff;;;{alice})(A;;0x120089;;;{carol})"))
        nconn.close()
        self.expect_smb(row, "alice creates wmg\\nofix on [rnofix]", OK, st)
        as_sent("wmg/nofix", "wmg\\nofix: the two ACEs sent, none inherited")
        self.expect_smb(row, "bob may not read wmg\\nofix", run.DENIED,
                        self.smb_open("bob", "wmg/nofix", read)[0])
        self.merge_race(row, sd_of(f"D:(A;;0x1f01ff;;;{alice})"))

    def swapper(self, user, a, b, stop):
        """A child process running as user that exchanges a and b
        (renameat2 RENAME_EXCHANGE) until the file stop exists; its pid."""
        uid, gid, groups = run.IDS[user]
        pid = os.fork()
        if pid == 0:
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                os.setgroups(groups)
                os.setresgid(gid, gid, gid)
                os.setresuid(uid, uid, uid)
                pa, pb = os.fsencode(self.p(a)), os.fsencode(self.p(b))
                n = 0
                while not os.path.exists(stop):
                    # SYS_renameat2 (x86_64 316), AT_FDCWD, RENAME_EXCHANGE
                    libc.syscall(316, -100, pa, -100, pb, 2)
                    n += 1
            finally:
                os._exit(0)
        return pid

    def merge_race(self, row, sd):
        """Bob swaps alice's directory with his own (which passes bob's
        entries on) while alice creates files in hers with an unprotected
        DACL: no file alice made there may get bob's entries."""
        self.mkdir("wsw", f"everyone@:{run.FULL_DIR}::allow")
        self.mkdir("wsw/sub", f"flags:a owner@:{run.FULL_DIR}:fd:allow", owner=1001)
        self.mkdir("wsw/evil", f"flags:a user:bob:{run.FULL_DIR}:fd:allow "
                               f"everyone@:{run.RX_DIR}::allow", owner=1002)
        stop = self.p("wsw.stop")
        conn, tid = self.raw_conn("alice")
        pid = self.swapper("bob", "wsw/sub", "wsw/evil", stop)
        made = []
        try:
            for i in range(120):
                if self.raw_create_sd(conn, tid, f"wsw/sub/f{i}", sd) == OK:
                    made.append(f"f{i}")
        finally:
            open(stop, "w").close()
            os.waitpid(pid, 0)
            os.unlink(stop)
            conn.close()
        bad = []
        for d in ("wsw/sub", "wsw/evil"):
            for name in made:
                rel = f"{d}/{name}"
                if not os.path.lexists(self.p(rel)):
                    continue
                st = os.lstat(self.p(rel))
                if st.st_uid == 1001 and "user:1002:" in self.acltext(rel, "--raw",
                                                                        "--numeric-ids"):
                    bad.append(rel)
        self.expect_state(row, f"race: {len(made)} files alice created while bob swapped "
                          "her directory with his: none got bob's entries",
                          made and not bad, f"bad {bad[:5]}, made {len(made)}")

    def set_null_dacl(self, user, rel):
        """Set a NULL DACL on rel as user; the status."""
        return self.set_sd_on(user, rel, run.READ_CONTROL | run.WRITE_DAC,
                              security.SECINFO_DACL, null_dacl=True)

    def fill_xattrs(self, rel):
        """Fill rel's extended attribute space with user.* attributes, as
        root, until not even a one-byte value with a short name fits (so
        neither does the marker); returns how many were set."""
        path, n = self.p(rel), 0
        for size in (256, 64, 16, 1):
            while True:
                try:
                    os.setxattr(path, f"user.f{n:04d}", b"x" * size)
                except OSError as e:
                    if e.errno in (errno.ENOSPC, errno.E2BIG):
                        break
                    raise
                n += 1
        try:
            os.setxattr(path, NULL_MARKER, b"1")
        except OSError as e:
            if e.errno not in (errno.ENOSPC, errno.E2BIG):
                raise
            return f"{n} attributes, the marker does not fit"
        os.removexattr(path, NULL_MARKER)
        raise SetupError(f"{rel}: the marker still fits after {n} attributes")

    def s_w_null(self):
        """S-W-null: a NULL DACL reads back as a NULL DACL."""
        row = "S-W-null"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        everyone_full = [(run.SID_EVERYONE, A, 0, run.FILE_ALL_ACCESS)]

        def shows_full(rel, share="richacl"):
            """(reads back as exactly Everyone: Full Control, details)"""
            st, sd = self.get_sd_on(share, "alice", rel)
            return (st == OK and self.aces_of(sd) == everyone_full,
                    f"{st} {self.show(self.aces_of(sd))}")

        def shows_null(rel, user="alice"):
            st, sd = self.smb_get_sd(user, rel)
            return (st == OK and sd.dacl is None and
                    bool(sd.type & security.SEC_DESC_DACL_PRESENT)), \
                f"{st} type 0x{sd.type if sd else 0:x} {self.show(self.aces_of(sd))}"

        self.mkdir("wnul", f"everyone@:{run.FULL_DIR}::allow")
        self.mkfile("wnul/f", acl=f"owner@:{run.FULL_FILE}::allow", owner=1001)
        self.expect_smb(row, "alice sets a NULL DACL on wnul\\f", OK,
                        self.set_null_dacl("alice", "wnul/f"))
        ok, got = shows_null("wnul/f")
        self.expect_state(row, "it reads back as a NULL DACL (DACL_PRESENT, no DACL)", ok, got)
        entries = self.aclentries("wnul/f")[1]
        self.expect_state(row, "the kernel holds everyone@ allowed everything, one entry",
                          len(entries) == 1 and entries[0][0] == "everyone@" and
                          entries[0][3] == "allow", f"{entries}")
        self.expect_smb(row, "bob writes wnul\\f (a NULL DACL grants everybody)", OK,
                        self.smb_write_at("bob", "wnul/f", run.WRITE_DATA, b"bob", 0)[0])
        self.expect_local(row, "bob writes wnul/f locally (kernel)", "OK",
                          self.l_open("bob", "wnul/f", os.O_WRONLY))
        ok, got = shows_null("wnul/f", "bob")
        self.expect_state(row, "bob reads the NULL DACL too", ok, got)

        # a local chmod cuts the masks: no longer what a NULL DACL grants
        os.chmod(self.p("wnul/f"), 0o640)
        st, sd = self.smb_get_sd("alice", "wnul/f")
        self.expect_state(row, "after a local chmod 0640 the real acl shows, not a NULL DACL",
                          st == OK and sd.dacl is not None, f"{st} {self.show(self.aces_of(sd))}")
        self.expect_smb(row, "and bob may no longer write over SMB", run.DENIED,
                        self.smb_open("bob", "wnul/f", run.WRITE_DATA)[0])

        # an explicit Everyone: Full Control is shown as that, and unmarks
        self.expect_smb(row, "alice sets a NULL DACL on wnul\\f again", OK,
                        self.set_null_dacl("alice", "wnul/f"))
        st = self.set_dacl_on("richacl", "alice", "wnul/f",
                              [(A, run.SID_EVERYONE, run.FILE_ALL_ACCESS)])
        self.expect_smb(row, "alice sets an explicit Everyone: Full Control", OK, st)
        self.expect_state(row, "it reads back as that one ACE, not as a NULL DACL",
                          *shows_full("wnul/f"))
        self.expect_state(row, f"{NULL_MARKER} is gone", self.xattr("wnul/f", NULL_MARKER) ==
                          NO_XATTR, f"{self.xattr('wnul/f', NULL_MARKER)!r}")

        # nobody but root writes the marker; a marker on another acl is ignored
        self.mkfile("wnul/g", acl=f"everyone@:{run.FULL_FILE}::allow", owner=1002)
        got = self.local("bob", lambda: os.setxattr(self.p("wnul/g"), NULL_MARKER, b"1"))
        self.expect_local(row, "bob (owner, Full Control) writes the marker locally", "DENIED",
                          got)
        st, sd = self.smb_get_sd("bob", "wnul/g")
        self.expect_state(row, "wnul\\g (everyone@ Full Control, never a NULL DACL) shows the ACE",
                          st == OK and sd.dacl is not None, f"{st} {self.show(self.aces_of(sd))}")
        self.mkfile("wnul/h", acl=f"owner@:{run.FULL_FILE}::allow everyone@:{run.R_FILE}::allow",
                    owner=1001)
        os.setxattr(self.p("wnul/h"), NULL_MARKER, b"1")
        st, sd = self.smb_get_sd("alice", "wnul/h")
        self.expect_state(row, "a marker on an acl that is no NULL DACL's changes nothing",
                          st == OK and sd.dacl is not None and len(sd.dacl.aces) == 2,
                          f"{st} {self.show(self.aces_of(sd))}")

        # a directory: a NULL DACL passes nothing on
        self.mkdir("wnul/cd", f"owner@:{run.FULL_DIR}:fd:allow", owner=1001)
        self.expect_smb(row, "alice sets a NULL DACL on directory wnul\\cd", OK,
                        self.set_null_dacl("alice", "wnul/cd"))
        ok, got = shows_null("wnul/cd")
        self.expect_state(row, "wnul\\cd reads back as a NULL DACL", ok, got)

        # where smbd's own code mishandles a NULL DACL, Everyone: Full Control
        # shows: [rinhown] (inherit acls + inherit owner: smbd would crash
        # computing a child's descriptor) for directories, [rfruit] (vfs_fruit
        # adds MS-NFS entries that would make a deny-all DACL) for everything
        for share, rel, null in (("rinhown", "wnul/cd", False), ("rinhown", "wnul/f2", True),
                                 ("rfruit", "wnul/f2", False), ("rfruit", "wnul/cd", False)):
            if rel == "wnul/f2" and not self.exists(rel):
                self.mkfile(rel, acl=f"owner@:{run.FULL_FILE}::allow", owner=1001)
                self.set_null_dacl("alice", rel)
            if null:
                st, sd = self.get_sd_on(share, "alice", rel)
                shown = (st == OK and sd.dacl is None, f"{st} {self.show(self.aces_of(sd))}")
            else:
                shown = shows_full(rel, share)
            self.expect_state(row, f"{rel} on [{share}] reads back as "
                              f"{'a NULL DACL' if null else 'Everyone: Full Control'}", *shown)
        c = self.conn_on("bob", "rinhown")
        st, fnum = self.smb(c.create, self.w("wnul/cd/bob"), DesiredAccess=run.WRITE_DATA,
                            ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_CREATE,
                            CreateOptions=run.FILE_NON_DIRECTORY_FILE)
        self.expect_smb(row, "bob creates wnul\\cd\\bob on [rinhown] (the session survives)",
                        OK, st)
        if st == OK:
            self.smb(c.close, fnum)

        # the marker cannot be written (no xattr space left): the DACL is
        # still set, the failure is logged, and Everyone: Full Control shows
        self.mkfile("wnul/full", acl=f"owner@:{run.FULL_FILE}::allow", owner=1001)
        left = self.fill_xattrs("wnul/full")
        self.expect_smb(row, f"alice sets a NULL DACL on wnul\\full ({left})", OK,
                        self.set_null_dacl("alice", "wnul/full"))
        entries = self.aclentries("wnul/full")[1]
        self.expect_state(row, "wnul/full: the kernel holds everyone@ allowed everything",
                          len(entries) == 1 and entries[0][0] == "everyone@", f"{entries}")
        self.expect_log(row, "the marker that did not fit is logged",
                        f"wnul/full: setting {NULL_MARKER} failed")
        self.expect_state(row, "wnul\\full reads back as Everyone: Full Control",
                          *shows_full("wnul/full"))

        # a marker value of another size is no marker, and an explicit DACL removes it
        self.mkfile("wnul/m", acl=f"everyone@:{run.FULL_FILE}::allow", owner=1001)
        os.setxattr(self.p("wnul/m"), NULL_MARKER, b"11")
        self.expect_state(row, "a marker \"11\" is no marker: the ACE shows",
                          *shows_full("wnul/m"))
        st = self.set_dacl_on("richacl", "alice", "wnul/m",
                              [(A, run.SID_EVERYONE, run.FILE_ALL_ACCESS)])
        self.expect_smb(row, "alice sets Everyone: Full Control on wnul\\m", OK, st)
        self.expect_state(row, "the odd marker is removed", self.xattr("wnul/m", NULL_MARKER) ==
                          NO_XATTR, f"{self.xattr('wnul/m', NULL_MARKER)!r}")
        self.expect_local(row, "bob creates a file in wnul/cd locally (kernel)", "OK",
                          self.l_open("bob", "wnul/cd/x", os.O_WRONLY | os.O_CREAT))
        got = self.xattr("wnul/cd/x", "system.richacl")
        self.expect_state(row, "which inherits nothing from the NULL DACL (no richacl, a mode)",
                          got == NO_XATTR, f"{got!r}")

    def s_w_m8(self):
        """S-W-m8: an ACE names its SID for good; OWNER RIGHTS follows the owner."""
        row = "S-W-m8"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        D = security.SEC_ACE_TYPE_ACCESS_DENIED
        alice, bob = self.sids["alice"], self.sids["bob"]
        owner_rights = "S-1-3-4"
        wo = security.SEC_STD_WRITE_OWNER
        dacl_access = run.READ_CONTROL | run.WRITE_DAC
        self.mkdir("wm8", f"everyone@:{run.RX_DIR}::allow")

        # alice's ACE stays alice's when bob takes ownership
        self.mkfile("wm8/f", b"alice's\n", owner=1001)
        st = self.set_sd_on("alice", "wm8/f", dacl_access, security.SECINFO_DACL,
                            aces=[(A, alice, run.FILE_ALL_ACCESS),
                                  (A, bob, run.FILE_GENERIC_READ | wo)])
        self.expect_smb(row, "alice sets wm8\\f's DACL: alice Full Control, bob read + "
                        "take ownership", OK, st)
        entries = self.aclentries("wm8/f")[1]
        self.expect_state(row, "alice's ACE is a user:1001 entry, not owner@",
                          any(e[0] == "user:1001" and e[3] == "allow" for e in entries) and
                          not any(e[0] == "owner@" for e in entries), f"{entries}")
        st = self.set_sd_on("bob", "wm8/f", wo, security.SECINFO_OWNER, owner=bob)
        self.expect_smb(row, "bob takes ownership of wm8\\f", OK, st)
        self.expect_state(row, "bob owns wm8/f", self.owner("wm8/f") == 1002,
                          f"uid {self.owner('wm8/f')}")
        st, _ = self.smb_write_at("alice", "wm8/f", run.WRITE_DATA, b"A", 0)
        self.expect_smb(row, "alice still writes wm8\\f over SMB (her ACE)", OK, st)
        self.expect_local(row, "alice still opens wm8/f for writing (kernel)", "OK",
                          self.l_open("alice", "wm8/f", os.O_WRONLY))
        st, _ = self.smb_write_at("bob", "wm8/f", run.WRITE_DATA, b"B", 0)
        self.expect_smb(row, "bob, now the owner, does not write wm8\\f over SMB", run.DENIED, st)
        self.expect_local(row, "bob does not open wm8/f for writing (kernel)", "DENIED",
                          self.l_open("bob", "wm8/f", os.O_WRONLY))
        self.expect_local(row, "bob reads wm8/f (his ACE)", "OK", self.l_read("bob", "wm8/f"))
        st, aces = self.get_dacl_sids("alice", "wm8/f")
        self.expect_state(row, "the DACL reads back naming alice and bob as set",
                          st == OK and aces == [(A, alice, run.FILE_ALL_ACCESS),
                                                (A, bob, run.FILE_GENERIC_READ | wo)],
                          f"{st} {aces}")

        # OWNER RIGHTS: the owner, whoever that is, in the kernel as in smbd
        self.mkfile("wm8/o", b"owner rights\n", owner=1001)
        st = self.set_sd_on("alice", "wm8/o", dacl_access, security.SECINFO_DACL,
                            aces=[(D, owner_rights, run.WRITE_DATA | security.SEC_FILE_APPEND_DATA),
                                  (A, owner_rights, run.FILE_GENERIC_READ),
                                  (A, run.SID_EVERYONE, run.FILE_GENERIC_WRITE)])
        self.expect_smb(row, "alice sets wm8\\o's DACL: OWNER RIGHTS deny write, allow read; "
                        "Everyone write", OK, st)
        entries = self.aclentries("wm8/o")[1]
        self.expect_state(row, "OWNER RIGHTS is stored as owner@ (deny and allow)",
                          [e[0] for e in entries][:2] == ["owner@", "owner@"] and
                          entries[0][3] == "deny" and entries[1][3] == "allow", f"{entries}")
        st, data = self.smb_read("alice", "wm8/o")
        self.expect_smb(row, "owner alice reads wm8\\o over SMB", OK, st)
        self.expect_local(row, "owner alice reads wm8/o (kernel: owner@ allow)", "OK",
                          self.l_read("alice", "wm8/o"))
        st, _ = self.smb_write_at("alice", "wm8/o", run.WRITE_DATA, b"A", 0)
        self.expect_smb(row, "owner alice does not write wm8\\o over SMB", run.DENIED, st)
        self.expect_local(row, "owner alice does not open wm8/o for writing (kernel: owner@ "
                          "deny, although Everyone may write)", "DENIED",
                          self.l_open("alice", "wm8/o", os.O_WRONLY))
        self.expect_local(row, "bob opens wm8/o for writing (Everyone)", "OK",
                          self.l_open("bob", "wm8/o", os.O_WRONLY))
        self.expect_local(row, "bob does not read wm8/o", "DENIED", self.l_read("bob", "wm8/o"))
        want_o = [(D, owner_rights, run.WRITE_DATA | security.SEC_FILE_APPEND_DATA),
                  (A, owner_rights, run.FILE_GENERIC_READ),
                  (A, run.SID_EVERYONE, run.FILE_GENERIC_WRITE)]
        st, aces = self.get_dacl_sids("alice", "wm8/o")
        self.expect_state(row, "the DACL reads back with OWNER RIGHTS as set, masks included",
                          st == OK and aces == want_o, f"{st} {aces}")
        flags = self.aclentries("wm8/o")[0]
        self.expect_state(row, "the acl has the flag owner_rights", "o" in flags,
                          f"flags {flags!r}")
        st = self.set_sd_on("alice", "wm8/o", dacl_access, security.SECINFO_DACL,
                            aces=[(A, run.SID_EVERYONE, run.FILE_ALL_ACCESS)])
        self.expect_smb(row, "owner alice may not change wm8\\o's DACL over SMB (OWNER "
                        "RIGHTS takes WRITE_DAC away, as on Windows)", run.DENIED, st)
        self.expect_local(row, "nor locally: owner alice's setrichacl is refused (kernel: "
                          "owner_rights)", "DENIED",
                          self.l_setrichacl("alice", "wm8/o", "--modify",
                                            f"everyone@:{run.R_FILE}::allow"))
        self.expect_local(row, "nor may owner alice chmod wm8/o", "DENIED",
                          self.local("alice", lambda: os.chmod(self.p("wm8/o"), 0o666)))
        self.expect_local(row, "owner alice still sets its times (write_attributes stays "
                          "the owner's)", "OK",
                          self.local("alice", lambda: os.utime(self.p("wm8/o"), (1, 1))))
        os.chown(self.p("wm8/o"), 1002, -1)
        self.expect_local(row, "after a chown to bob, bob reads wm8/o (owner@ follows)", "OK",
                          self.l_read("bob", "wm8/o"))
        self.expect_local(row, "and bob may no longer write it", "DENIED",
                          self.l_open("bob", "wm8/o", os.O_WRONLY))
        self.expect_local(row, "and alice no longer reads it", "DENIED",
                          self.l_read("alice", "wm8/o"))
        self.expect_local(row, "and alice writes it (Everyone)", "OK",
                          self.l_open("alice", "wm8/o", os.O_WRONLY))
        self.expect_local(row, "and alice, no longer the owner, may not chmod it", "DENIED",
                          self.local("alice", lambda: os.chmod(self.p("wm8/o"), 0o666)))
        st, data = self.smb_read("bob", "wm8/o")
        self.expect_smb(row, "bob reads wm8\\o over SMB", OK, st)
        st, aces = self.get_dacl_sids("bob", "wm8/o")
        self.expect_state(row, "after the chown it still reads back with OWNER RIGHTS",
                          st == OK and aces == want_o, f"{st} {aces}")
        st = self.set_sd_on("bob", "wm8/o", dacl_access, security.SECINFO_DACL,
                            aces=[(A, run.SID_EVERYONE, run.FILE_ALL_ACCESS)])
        self.expect_smb(row, "owner bob may not change wm8\\o's DACL over SMB", run.DENIED, st)
        self.expect_local(row, "nor locally (kernel: owner_rights binds the new owner)",
                          "DENIED", self.l_setrichacl("bob", "wm8/o", "--modify",
                                                      f"everyone@:{run.R_FILE}::allow"))
        self.expect_local(row, "nor may owner bob chmod it", "DENIED",
                          self.local("bob", lambda: os.chmod(self.p("wm8/o"), 0o666)))
        # root (CAP_FOWNER) may: a chmod keeps the flag (the masks it sets cut
        # read_acl too, so nobody reads the DACL over SMB after it: smbd
        # withholds what Linux always grants)
        os.chmod(self.p("wm8/o"), 0o640)
        flags = self.aclentries("wm8/o")[0]
        self.expect_state(row, "root's chmod keeps the flag owner_rights", "o" in flags,
                          f"flags {flags!r}")
        self.expect_local(row, "and owner bob still may not change the acl", "DENIED",
                          self.l_setrichacl("bob", "wm8/o", "--modify",
                                            f"everyone@:{run.R_FILE}::allow"))
        # the flag alone (set locally, no owner@ entry): an OWNER RIGHTS ACE
        # that grants nothing shows, so that smbd withholds WRITE_DAC too
        self.mkfile("wm8/e", b"e\n", owner=1001,
                    acl=f"flags:o everyone@:{run.R_FILE}::allow")
        st, aces = self.get_dacl_sids("alice", "wm8/e")
        self.expect_state(row, "flag without owner@: an empty OWNER RIGHTS ACE shows",
                          st == OK and (A, owner_rights, 0) in aces, f"{st} {aces}")
        st = self.set_sd_on("alice", "wm8/e", dacl_access, security.SECINFO_DACL,
                            aces=[(A, run.SID_EVERYONE, run.FILE_ALL_ACCESS)])
        self.expect_smb(row, "owner alice may not change wm8\\e's DACL over SMB", run.DENIED,
                        st)
        self.expect_local(row, "nor locally", "DENIED",
                          self.l_setrichacl("alice", "wm8/e", "--modify",
                                            f"everyone@:{run.R_FILE}::allow"))
        # a directory: OWNER RIGHTS OI|CI reads back as one ACE; a child shows its owner
        self.mkdir("wm8/d", f"owner@:{FULL_DIR}::allow", owner=1001)
        oici = security.SEC_ACE_FLAG_OBJECT_INHERIT | security.SEC_ACE_FLAG_CONTAINER_INHERIT
        st = self.set_sd_on("alice", "wm8/d", dacl_access, security.SECINFO_DACL,
                            aces=[(A, owner_rights, run.FILE_ALL_ACCESS, oici),
                                  (A, run.SID_EVERYONE, run.FILE_GENERIC_READ |
                                   run.FILE_GENERIC_WRITE | security.SEC_DIR_TRAVERSE, oici)])
        self.expect_smb(row, "alice sets OWNER RIGHTS Full Control OI|CI on wm8\\d", OK, st)
        st, sd = self.smb_get_sd("alice", "wm8/d")
        got = [(str(a.trustee), a.flags, a.access_mask) for a in sd.dacl.aces] if sd else []
        self.expect_state(row, "wm8\\d reads back OWNER RIGHTS OI|CI Full Control, one ACE",
                          st == OK and got[:1] == [(owner_rights, oici, run.FILE_ALL_ACCESS)],
                          f"{st} {got}")
        self.expect_local(row, "owner alice changes wm8/d's acl locally (OWNER RIGHTS grants "
                          "her write_acl)", "OK",
                          self.l_setrichacl("alice", "wm8/d", "--modify",
                                            f"user:1003:{run.R_FILE}::allow"))
        st = self.smb_create_file("bob", "wm8/d/f", b"bob's\n")
        self.expect_smb(row, "bob creates wm8\\d\\f", OK, st)
        flags = self.aclentries("wm8/d/f")[0]
        self.expect_state(row, "wm8/d/f inherits the flag (an inherited OWNER RIGHTS ACE)",
                          "o" in flags, f"flags {flags!r}")
        st, sd = self.smb_get_sd("bob", "wm8/d/f")
        got = [(str(a.trustee), a.flags, a.access_mask) for a in sd.dacl.aces] if sd else []
        self.expect_state(row, "wm8\\d\\f shows OWNER RIGHTS Full Control",
                          st == OK and any(t == owner_rights and m == run.FILE_ALL_ACCESS
                                           for t, _, m in got), f"{st} {got}")
        self.expect_local(row, "owner bob changes wm8/d/f's acl locally (the inherited "
                          "OWNER RIGHTS grants write_acl)", "OK",
                          self.l_setrichacl("bob", "wm8/d/f", "--modify",
                                            f"user:1003:{run.R_FILE}::allow"))
        # OWNER RIGHTS read only, inheritable: the owner of a file created
        # over SMB may not change its DACL, as on Windows
        self.mkdir("wm8/ri", f"owner@:{FULL_DIR}::allow", owner=1001)
        st = self.set_sd_on("alice", "wm8/ri", dacl_access, security.SECINFO_DACL,
                            aces=[(A, alice, run.FILE_ALL_ACCESS, oici),
                                  (A, owner_rights, run.FILE_GENERIC_READ, oici),
                                  (A, run.SID_EVERYONE, run.FILE_GENERIC_READ |
                                   run.FILE_GENERIC_WRITE | security.SEC_DIR_TRAVERSE, oici)])
        self.expect_smb(row, "alice sets alice Full Control, OWNER RIGHTS read OI|CI on wm8\\ri",
                        OK, st)
        st = self.smb_create_file("bob", "wm8/ri/f", b"bob's\n")
        self.expect_smb(row, "bob creates wm8\\ri\\f", OK, st)
        self.expect_state(row, "wm8/ri/f inherits the flag", "o" in self.aclentries("wm8/ri/f")[0],
                          self.acltext("wm8/ri/f"))
        st = self.set_sd_on("bob", "wm8/ri/f", dacl_access, security.SECINFO_DACL,
                            aces=[(A, bob, run.FILE_ALL_ACCESS)])
        self.expect_smb(row, "owner bob may not change wm8\\ri\\f's DACL (the inherited "
                        "OWNER RIGHTS takes WRITE_DAC away)", run.DENIED, st)
        self.expect_local(row, "nor locally (kernel)", "DENIED",
                          self.l_setrichacl("bob", "wm8/ri/f", "--modify",
                                            f"user:1002:{run.R_FILE}::allow"))
        try:
            conn, tid = self.raw_conn("bob")
            st = self.raw_create_sd(conn, tid, "wm8/ri/g", security.descriptor.from_sddl(
                f"D:(A;;0x120089;;;{bob})", security.dom_sid(bob.rsplit("-", 1)[0])))
        except Exception as e:          # noqa: BLE001 - reported as a failure
            st = self.raw_status(e)
        self.expect_smb(row, "bob creates wm8\\ri\\g with an unprotected DACL (bob read)", OK, st)
        self.expect_state(row, "wm8/ri/g: the merged acl keeps the inherited OWNER RIGHTS and "
                          "the flag", "o" in self.aclentries("wm8/ri/g")[0],
                          self.acltext("wm8/ri/g"))
        # a directory made in a set-group-ID parent whose group the creator
        # is not in: giving it the flag keeps the bit (the kernel would
        # clear it for a set by alice, as for any acl she sets)
        rs_acl = (f"flags:o owner@:{FULL_DIR}:fd:allow "
                  f"everyone@:{run.RX_DIR}wpd:fd:allow")
        self.mkdir("wm8/rs", rs_acl, owner=1002)
        os.chown(self.p("wm8/rs"), 1002, run.STAFF)
        os.chmod(self.p("wm8/rs"), 0o2777)
        self.setacl("wm8/rs", rs_acl)
        self.expect_smb(row, "alice makes wm8\\rs\\d (set-group-ID parent, group staff)", OK,
                        self.smb_mkdir("alice", "wm8/rs/d"))
        d = os.lstat(self.p("wm8/rs/d"))
        self.expect_state(row, "wm8/rs/d inherits the flag and keeps the set-group-ID bit",
                          "o" in self.aclentries("wm8/rs/d")[0] and bool(d.st_mode & 0o2000)
                          and d.st_gid == run.STAFF,
                          f"mode {oct(d.st_mode)} gid {d.st_gid}: {self.acltext('wm8/rs/d')}")
        # a directory created as Explorer does, with FILE_LIST_DIRECTORY
        # and FILE_ADD_FILE: smbd reopens it right after the create
        c = self.conn_on("bob", "richacl")
        st, fnum = self.smb(c.create, self.w("wm8/ri/dl"),
                            DesiredAccess=run.SYNCHRONIZE | run.READ_ATTRIBUTES |
                            security.SEC_DIR_LIST | security.SEC_DIR_ADD_FILE,
                            ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_CREATE,
                            CreateOptions=run.FILE_DIRECTORY_FILE)
        self.expect_smb(row, "bob creates directory wm8\\ri\\dl with LIST_DIRECTORY and "
                        "ADD_FILE", OK, st)
        if st == OK:
            self.smb(c.close, fnum)
        self.expect_state(row, "wm8/ri/dl inherits the flag",
                          "o" in self.aclentries("wm8/ri/dl")[0],
                          self.acltext("wm8/ri/dl"))
        self.expect_local(row, "owner bob may not chmod wm8/ri/dl (kernel)", "DENIED",
                          self.local("bob", lambda: os.chmod(self.p("wm8/ri/dl"), 0o777)))
        # documented: the kernel gives no flag to what is created locally
        self.expect_local(row, "bob creates wm8/ri/l locally", "OK",
                          self.local("bob", lambda: os.close(os.open(
                              self.p("wm8/ri/l"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))))
        self.expect_state(row, "documented: wm8/ri/l (a local create) has no flag",
                          "o" not in self.aclentries("wm8/ri/l")[0], self.acltext("wm8/ri/l"))

        # an unmapped NETWORK entry granting write_attributes is not in
        # bob's view (vfs_richacl.8, ONE VERDICT), so smbd refuses his open
        # for WRITE_ATTRIBUTES, as the kernel refuses his utimes (EPERM); a
        # descriptor read never turns that refusal into another status
        self.mkfile("wm8/t", b"t\n", owner=1001,
                    acl=f"owner@:{run.FULL_FILE}::allow user:S-1-5-2:A{run.R_FILE}:u:allow")
        st, out = self.smbclient("bob", 'utimes "wm8\\t" -1 -1 2001:02:03-04:05:06 -1')
        self.expect_smb(row, "bob sets the times of wm8\\t (only an unmapped NETWORK entry "
                        "grants write_attributes)", run.DENIED, st)

        # OWNER RIGHTS that grants WRITE_DAC: the owner may change the acl, in
        # smbd and in the kernel; a DACL without OWNER RIGHTS drops the flag
        self.mkfile("wm8/n", b"n\n", owner=1001)
        st = self.set_sd_on("alice", "wm8/n", dacl_access, security.SECINFO_DACL,
                            aces=[(A, owner_rights, run.FILE_GENERIC_READ | run.WRITE_DAC |
                                   run.READ_CONTROL)])
        self.expect_smb(row, "alice sets OWNER RIGHTS read + WRITE_DAC on wm8\\n", OK, st)
        self.expect_state(row, "wm8/n has the flag owner_rights",
                          "o" in self.aclentries("wm8/n")[0], self.aclentries("wm8/n")[0])
        st = self.set_sd_on("alice", "wm8/n", dacl_access, security.SECINFO_DACL,
                            aces=[(A, alice, run.FILE_GENERIC_READ)])
        self.expect_smb(row, "alice (WRITE_DAC through OWNER RIGHTS) sets alice: read", OK, st)
        self.expect_state(row, "the flag is gone", "o" not in self.aclentries("wm8/n")[0],
                          self.aclentries("wm8/n")[0])
        self.expect_local(row, "and owner alice changes the acl locally again", "OK",
                          self.l_setrichacl("alice", "wm8/n", "--modify",
                                            f"user:1003:{run.R_FILE}::allow"))
        self.mkfile("wm8/w", b"w\n", owner=1001)
        st = self.set_sd_on("alice", "wm8/w", dacl_access, security.SECINFO_DACL,
                            aces=[(A, owner_rights, run.FILE_ALL_ACCESS)])
        self.expect_smb(row, "alice sets OWNER RIGHTS Full Control on wm8\\w", OK, st)
        self.expect_local(row, "owner alice may chmod wm8/w, set-user-ID bit included "
                          "(write_acl through owner@: the owner's chmod rules)", "OK",
                          self.local("alice", lambda: os.chmod(self.p("wm8/w"), 0o4640)))
        mode = os.lstat(self.p("wm8/w")).st_mode & 0o7777
        self.expect_state(row, "the chmod set the mode", mode == 0o4640, f"{mode:o}")
        # the masks of that chmod limit the owner's entries like anybody's:
        # no mode bit grants write_acl, so the owner may not chmod again
        self.expect_local(row, "after it the owner's write_acl is masked: a second chmod is "
                          "refused", "DENIED",
                          self.local("alice", lambda: os.chmod(self.p("wm8/w"), 0o644)))
        # smbd retries a DOS-attribute chmod that the kernel refused as root
        # ("dos filemode", [rapplydos]: richacl:chmod = apply, no stored DOS
        # attributes); the module's model of the kernel must refuse the owner
        # whose write_acl the flag withholds, as the kernel did
        self.mkfile("wm8/r", b"r\n", owner=1001,
                    acl=f"flags:o owner@:{run.R_FILE}wA::allow everyone@:{run.R_FILE}::allow")
        before = self.state_of("wm8/r")
        st, _ = self.client_on("rapplydos", "alice", "setmode wm8\\r +r")
        self.expect_smb(row, "[rapplydos] owner alice sets read-only on wm8\\r (a chmod smbd "
                        "retries as root)", run.DENIED, st)
        self.expect_state(row, "wm8/r unchanged (mode and acl)", self.state_of("wm8/r") == before,
                          f"{before} -> {self.state_of('wm8/r')}")
        self.mkfile("wm8/r2", b"r\n", owner=1001,
                    acl=f"flags:o owner@:{run.R_FILE}wAC::allow everyone@:{run.R_FILE}::allow")
        st, _ = self.client_on("rapplydos", "alice", "setmode wm8\\r2 +r")
        self.expect_smb(row, "[rapplydos] with write_acl through owner@ she may (control)", OK,
                        st)
        # a marker left by earlier versions is ignored
        self.mkfile("wm8/old", b"old\n", owner=1001, acl=f"owner@:{run.R_FILE}::allow")
        os.setxattr(self.p("wm8/old"), OLD_OWNER_RIGHTS_MARKER, b"\x01" + b"\0" * 15)
        st, aces = self.get_dacl_sids("alice", "wm8/old")
        self.expect_state(row, "an old OWNER RIGHTS marker is ignored: the owner's SID shows",
                          st == OK and alice in [sid for _, sid, _ in aces] and
                          owner_rights not in [sid for _, sid, _ in aces], f"{st} {aces}")

    def must_access(self, rel, mode):
        if not os.access(self.p(rel), mode, effective_ids=True):
            raise PermissionError(13, "access", self.p(rel))

    def s_w_overwrite(self):
        """S-W-overwrite: overwrite and supersede ask what Windows asks."""
        row = "S-W-overwrite"
        self.mkdir("wover", f"everyone@:{run.RX_DIR}::allow user:bob:wp::allow")
        base = f"owner@:{run.FULL_FILE}::allow everyone@:{run.R_FILE}::allow"
        cases = [
            # (name, bob's entry, disposition, want)
            ("w", "waS", run.FILE_OVERWRITE, run.DENIED),
            ("wW", "wWaS", run.FILE_OVERWRITE, run.DENIED),
            ("wA", "wAaS", run.FILE_OVERWRITE_IF, run.DENIED),
            ("wWA", "wWAaS", run.FILE_OVERWRITE, OK),
            ("wWAi", "wWAaS", run.FILE_OVERWRITE_IF, OK),
            ("sup", "wWAaS", FILE_SUPERSEDE, run.DENIED),
            ("supD", "wWADaS", FILE_SUPERSEDE, OK),
        ]
        for name, entry, disposition, want in cases:
            rel = f"wover/{name}"
            self.mkfile(rel, b"alice's\n", owner=1001,
                        acl=f"{base} user:bob:{entry}::allow")
            st, fnum = self.smb_open("bob", rel, run.WRITE_DATA | run.SYNCHRONIZE,
                                     disposition, run.FILE_NON_DIRECTORY_FILE)
            if st == OK:
                self.smb_close("bob", fnum)
            self.expect_smb(row, f"bob opens {rel} (bob: {entry}) with disposition "
                            f"{disposition}", want, st)
            self.expect_content(row, rel, b"" if want == OK else b"alice's\n")
        st, fnum = self.smb_open("bob", "wover/new", run.WRITE_DATA | run.SYNCHRONIZE,
                                 run.FILE_OVERWRITE_IF, run.FILE_NON_DIRECTORY_FILE)
        if st == OK:
            self.smb_close("bob", fnum)
        self.expect_smb(row, "bob creates wover/new through FILE_OVERWRITE_IF", OK, st)

    def s_w_stream(self):
        """S-W-stream: a new named stream needs write_data on its file."""
        row = "S-W-stream"
        self.mkdir("wstream", f"everyone@:{run.RX_DIR}::allow")
        base = f"owner@:{run.FULL_FILE}::allow everyone@:{run.R_FILE}::allow"
        rw = run.WRITE_DATA | run.READ_DATA | run.SYNCHRONIZE
        ro = run.READ_DATA | run.SYNCHRONIZE
        ra = security.SEC_FILE_READ_ATTRIBUTE | run.SYNCHRONIZE
        cases = (
            # (name, bob's entry, access asked for, disposition, want)
            ("n", "rWaAS", rw, run.FILE_CREATE, run.DENIED),
            # the access asked for is not what decides: a new stream needs
            # write_data on the file even for a handle that only reads
            ("nr", "rWaAS", ro, run.FILE_CREATE, run.DENIED),
            ("ni", "rWaAS", ro, run.FILE_OPEN_IF, run.DENIED),
            ("ns", "rWaAS", ra, FILE_SUPERSEDE, run.DENIED),
            ("no", "rWaAS", ra, run.FILE_OVERWRITE_IF, run.DENIED),
            ("w", "rwWaAS", rw, run.FILE_CREATE, OK),
            # a deny of FILE_WRITE_EA does not matter: write_data decides
            ("dW", "W::deny user:bob:rwaAS", rw, run.FILE_CREATE, OK),
            ("wr", "rwWaAS", ro, run.FILE_OPEN_IF, OK),
        )
        for name, entry, access, disposition, want in cases:
            rel = f"wstream/{name}"
            self.mkfile(rel, b"base\n", owner=1001, acl=f"{base} user:bob:{entry}::allow")
            c = self.conn_on("bob", "rstreams")
            st, fnum = self.smb(c.create, self.w(rel) + ":s", DesiredAccess=access,
                                ShareAccess=run.SHARE_ALL, CreateDisposition=disposition,
                                CreateOptions=run.FILE_NON_DIRECTORY_FILE)
            if st == OK:
                if access & run.WRITE_DATA:
                    self.smb(c.write, fnum, b"stream", 0)
                self.smb(c.close, fnum)
            self.expect_smb(row, f"[rstreams] bob (bob: {entry}) creates {rel}:s "
                            f"(disposition {disposition}, access {access:#x})", want, st)
            streams = [n for n in os.listxattr(self.p(rel)) if n.startswith("user.DosStream.")]
            if want == OK:
                self.expect_state(row, f"{rel}:s exists", len(streams) == 1, repr(streams))
            else:
                self.expect_state(row, f"{rel}:s does not exist", streams == [],
                                  repr(streams))
            if want == OK and access & run.WRITE_DATA:
                st, data = self.smb(c.loadfile, self.w(rel) + ":s")
                self.expect_state(row, f"{rel}:s holds what bob wrote",
                                  st == OK and data == b"stream", f"{st} {data!r}")
            self.expect_content(row, rel, b"base\n")
        # a directory's stream needs add_file (FILE_WRITE_DATA) on it
        self.mkdir("wstream/d", f"owner@:{FULL_DIR}::allow user:bob:rxWaAS::allow", owner=1001)
        c = self.conn_on("bob", "rstreams")
        st, fnum = self.smb(c.create, self.w("wstream/d") + ":s", DesiredAccess=ro,
                            ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_CREATE,
                            CreateOptions=0)
        if st == OK:
            self.smb(c.close, fnum)
        self.expect_smb(row, "[rstreams] bob (rxWaAS, no add_file) creates wstream\\d:s",
                        run.DENIED, st)
        self.expect_state(row, "wstream/d has no stream",
                          not any(n.startswith("user.DosStream.")
                                  for n in os.listxattr(self.p("wstream/d"))),
                          repr(os.listxattr(self.p("wstream/d"))))

    def raw_ea(self, user, rel, access, set_value=None, name=b"WINEA"):
        """Open rel as user for access, then set the EA name to set_value
        (SET_INFO FileFullEaInformation) or, without set_value, read the
        file's EAs (QUERY_INFO FileFullEaInformation).  (open status,
        status of the request, the EA buffer read)."""
        conn, tid = self.raw_conn(user)
        try:
            st, fid = self.raw_open(conn, tid, rel, access)
            if st != OK:
                return st, None, None
            smb = conn._SMBConnection
            data = None
            try:
                if set_value is not None:
                    blob = struct.pack("<IBBH", 0, 0, len(name), len(set_value)) + \
                        name + b"\0" + set_value
                    smb.setInfo(tid, fid, inputBlob=blob,
                                infoType=smb3structs.SMB2_0_INFO_FILE,
                                fileInfoClass=smb3structs.SMB2_FULL_EA_INFO)
                else:
                    data = smb.queryInfo(tid, fid, infoType=smb3structs.SMB2_0_INFO_FILE,
                                         fileInfoClass=smb3structs.SMB2_FULL_EA_INFO)
                rst = OK
            except Exception as e:          # noqa: BLE001 - impacket raises its own
                rst = self.raw_status(e)
            conn.closeFile(tid, fid)
            return OK, rst, data
        finally:
            conn.close()

    def s_w_ea(self):
        """S-W-ea: EAs need FILE_READ_EA / FILE_WRITE_EA on the handle and the
        data rights in the kernel; smbd's private xattrs are no EAs."""
        row = "S-W-ea"
        denied = "NT_STATUS_ACCESS_DENIED"
        self.mkdir("wea", f"everyone@:{run.RX_DIR}::allow")
        base = f"owner@:{run.FULL_FILE}::allow"
        read_ea = security.SEC_FILE_READ_EA | run.SYNCHRONIZE
        write_ea = run.READ_DATA | security.SEC_FILE_WRITE_EA | run.SYNCHRONIZE
        for name, entry in (("wW", "rwWaS"), ("W", "rWaS"), ("w", "rwaS"), ("rR", "rRaS"),
                            ("R", "RaS"), ("r", "raS"), ("all", "rwWaAS")):
            self.mkfile(f"wea/{name}", b"data\n", owner=1001,
                        acl=f"{base} user:bob:{entry}::allow")
            os.setxattr(self.p(f"wea/{name}"), "user.WINEA", b"alice")

        def ea_of(rel):
            return self.xattr(rel, "user.WINEA")

        st, rst, _ = self.raw_ea("bob", "wea/wW", write_ea, b"bob")
        self.expect_smb(row, "bob (rwWaS) opens wea\\wW for FILE_WRITE_EA", OK, st)
        self.expect_smb(row, "bob sets an EA on wea\\wW", OK, rst)
        self.expect_state(row, "wea/wW holds bob's EA as user.WINEA", ea_of("wea/wW") == b"bob",
                          repr(ea_of("wea/wW")))

        # documented: stricter than Windows, the kernel asks write_data
        st, rst, _ = self.raw_ea("bob", "wea/W", write_ea, b"bob")
        self.expect_smb(row, "bob (rWaS: FILE_WRITE_EA, no write_data) opens wea\\W for "
                        "FILE_WRITE_EA", OK, st)
        self.expect_smb(row, "bob's EA on wea\\W is refused (the kernel asks write_data)",
                        denied, rst)
        self.expect_state(row, "wea/W keeps alice's EA", ea_of("wea/W") == b"alice",
                          repr(ea_of("wea/W")))
        self.expect_content(row, "wea/W", b"data\n")

        st, _, _ = self.raw_ea("bob", "wea/w", write_ea, b"bob")
        self.expect_smb(row, "bob (rwaS: write_data, no FILE_WRITE_EA) opens wea\\w for "
                        "FILE_WRITE_EA", denied, st)
        self.expect_state(row, "wea/w keeps alice's EA", ea_of("wea/w") == b"alice",
                          repr(ea_of("wea/w")))

        st, rst, data = self.raw_ea("bob", "wea/rR", read_ea)
        self.expect_smb(row, "bob (rRaS) opens wea\\rR for FILE_READ_EA", OK, st)
        self.expect_smb(row, "bob reads the EAs of wea\\rR", OK, rst)
        self.expect_state(row, "the EAs read hold alice's WINEA",
                          data is not None and b"WINEA" in bytes(data).upper() and
                          b"alice" in bytes(data), repr(data))

        # documented: stricter than Windows, the kernel asks read_data
        st, rst, data = self.raw_ea("bob", "wea/R", read_ea)
        self.expect_smb(row, "bob (RaS: FILE_READ_EA, no read_data) opens wea\\R for "
                        "FILE_READ_EA", OK, st)
        self.expect_smb(row, "reading the EAs of wea\\R is refused (the kernel asks "
                        "read_data)", denied, rst)

        st, _, _ = self.raw_ea("bob", "wea/r", read_ea)
        self.expect_smb(row, "bob (raS: read_data, no FILE_READ_EA) opens wea\\r for "
                        "FILE_READ_EA", denied, st)

        # smbd's own xattrs are not EAs a client may set
        for ea in (b"DosStream.evil:$DATA", b"DOSSTREAM.EVIL:$DATA", b"DOSATTRIB"):
            st, rst, _ = self.raw_ea("bob", "wea/all", write_ea, b"\x27", name=ea)
            self.expect_smb(row, "bob (rwWaAS) opens wea\\all for FILE_WRITE_EA", OK, st)
            self.expect_smb_any(row, f"bob's EA named {ea.decode()} is refused",
                                ["NT_STATUS_INVALID_EA_NAME", denied], rst)
        names = os.listxattr(self.p("wea/all"))
        self.expect_state(row, "wea/all has no stream and no user.DOSATTRIB from bob",
                          not any(n.lower().startswith("user.dosstream.") for n in names) and
                          self.xattr("wea/all", "user.DOSATTRIB") != b"\x27", repr(names))

    def s_w_mask(self):
        """S-W-mask: a user whom the masks leave without entries stays in the
        group class, in the DACL shown as in the kernel (algorithms.md 4.10)."""
        row = "S-W-mask"
        D = security.SEC_ACE_TYPE_ACCESS_DENIED
        bob = self.sids["bob"]
        self.mkdir("wmask", f"everyone@:{run.RX_DIR}::allow")
        # E4 of algorithms.md 4.11: chmod 604 cuts bob's entry to nothing,
        # and the kernel still counts him in the group class (mask empty)
        self.mkfile("wmask/f", b"alice's\n", acl="user:bob:rw::allow owner@:rwp::allow",
                    owner=1001)
        os.chmod(self.p("wmask/f"), 0o604)
        self.expect_local(row, "bob reads wmask/f (kernel)", "DENIED",
                          self.l_read("bob", "wmask/f"))
        st, aces = self.get_dacl_sids("alice", "wmask/f")
        self.expect_state(row, "the DACL shown denies bob read (not Everyone's read for him)",
                          st == OK and any(t == D and sid == bob and m & run.READ_DATA
                                           for t, sid, m in aces), f"{st} {aces}")
        st, _ = self.smb_read("bob", "wmask/f")
        self.expect_smb(row, "bob reads wmask\\f over SMB", run.DENIED, st)
        st, sd = self.smb_get_sd("alice", "wmask/f")
        st = self.put_sd_on("richacl", "alice", "wmask/f", sd) if st == OK else st
        self.expect_smb(row, "alice sets the DACL shown back on wmask\\f", OK, st)
        self.expect_local(row, "bob still does not read wmask/f (kernel)", "DENIED",
                          self.l_read("bob", "wmask/f"))



def plain_path_arg(ap):
    ap.add_argument("--plain-path", required=True,
                    help=f"directory of the [{PLAIN_SHARE}] share (no richacl support)")


if __name__ == "__main__":
    verdict.main(Windows, "S-W", __doc__.split("\n")[0], plain_path_arg)
