/**
 * The smallest program the VM will run: an SBPFv0 ELF whose entrypoint returns success (`mov64 r0, 0; exit`). The
 * simulator installs it at the program id of each product it serves (trigger, recurring, lend, send, prediction) so
 * that the transactions it hands out invoke those ids with their real instruction layouts, as the real service's
 * do, and land. It does nothing with them: the funds a product order moves go by the token and system
 * instructions in the same transaction, and the venue's keeper carries out what the program would do later (fills,
 * refunds, payouts) with transactions of its own. No Solana build toolchain is needed (or present) for these bytes.
 */
export function noopProgramElf(): Uint8Array {
  const text = Buffer.from([0xb7, 0, 0, 0, 0, 0, 0, 0, 0x95, 0, 0, 0, 0, 0, 0, 0]);
  const names = Buffer.from('\0.text\0.shstrtab\0');
  const EH = 64;
  const PH = 56;
  const SH = 64;
  const textOff = EH + PH;
  const namesOff = textOff + text.length;
  const shOff = (namesOff + names.length + 7) & ~7;
  const buf = Buffer.alloc(shOff + 3 * SH);
  // ELF header: 64-bit, little endian, SysV ABI, a shared object for the BPF machine.
  buf.write('\x7fELF', 0, 'latin1');
  buf[4] = 2;
  buf[5] = 1;
  buf[6] = 1;
  buf.writeUInt16LE(3, 16); // ET_DYN
  buf.writeUInt16LE(247, 18); // EM_BPF
  buf.writeUInt32LE(1, 20);
  buf.writeBigUInt64LE(BigInt(textOff), 24); // entrypoint: the start of .text
  buf.writeBigUInt64LE(BigInt(EH), 32);
  buf.writeBigUInt64LE(BigInt(shOff), 40);
  buf.writeUInt32LE(0, 48); // e_flags 0: SBPFv0
  buf.writeUInt16LE(EH, 52);
  buf.writeUInt16LE(PH, 54);
  buf.writeUInt16LE(1, 56);
  buf.writeUInt16LE(SH, 58);
  buf.writeUInt16LE(3, 60);
  buf.writeUInt16LE(2, 62); // section names in section 2
  // One loadable, executable segment holding .text.
  buf.writeUInt32LE(1, EH);
  buf.writeUInt32LE(5, EH + 4);
  buf.writeBigUInt64LE(BigInt(textOff), EH + 8);
  buf.writeBigUInt64LE(BigInt(textOff), EH + 16);
  buf.writeBigUInt64LE(BigInt(textOff), EH + 24);
  buf.writeBigUInt64LE(BigInt(text.length), EH + 32);
  buf.writeBigUInt64LE(BigInt(text.length), EH + 40);
  buf.writeBigUInt64LE(4096n, EH + 48);
  text.copy(buf, textOff);
  names.copy(buf, namesOff);
  // Section 1: .text (PROGBITS, alloc + exec); section 2: .shstrtab.
  const t = shOff + SH;
  buf.writeUInt32LE(1, t);
  buf.writeUInt32LE(1, t + 4);
  buf.writeBigUInt64LE(6n, t + 8);
  buf.writeBigUInt64LE(BigInt(textOff), t + 16);
  buf.writeBigUInt64LE(BigInt(textOff), t + 24);
  buf.writeBigUInt64LE(BigInt(text.length), t + 32);
  buf.writeBigUInt64LE(8n, t + 48);
  const s = shOff + 2 * SH;
  buf.writeUInt32LE(7, s);
  buf.writeUInt32LE(3, s + 4);
  buf.writeBigUInt64LE(BigInt(namesOff), s + 24);
  buf.writeBigUInt64LE(BigInt(names.length), s + 32);
  buf.writeBigUInt64LE(1n, s + 48);
  return new Uint8Array(buf);
}
