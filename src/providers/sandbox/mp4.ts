/**
 * A tiny placeholder MP4: an ISO-BMFF `ftyp` box (major brand `isom`, compatible isom/iso2/mp41)
 * followed by an `mdat` box holding a short ASCII note. Tools that sniff the container see an
 * MP4; it has no `moov` box, so it is not playable. The sandbox renders no real video.
 */
export function buildPlaceholderMp4(note: string): Buffer {
  const ftyp = encodeBox('ftyp', Buffer.concat([
    Buffer.from('isom', 'latin1'),
    Buffer.from([0, 0, 0x02, 0x00]), // minor version 512
    Buffer.from('isomiso2mp41', 'latin1'),
  ]));
  return Buffer.concat([ftyp, encodeBox('mdat', Buffer.from(`model-gateway sandbox video ${note}`, 'utf8'))]);
}

function encodeBox(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}
