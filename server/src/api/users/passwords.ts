import bcrypt from 'bcryptjs';

const bcryptCost = 10;
/** A valid hash of a random string: comparing against it costs the same as against a real one. */
const decoyHash = bcrypt.hashSync(`decoy-${Math.random()}`, bcryptCost);

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, bcryptCost);
}

/** Compares in constant work whether or not the user exists (no timing hint about usernames). */
export async function isPasswordCorrect(password: string, hash: string | null | undefined): Promise<boolean> {
  const isMatch = await bcrypt.compare(password, hash || decoyHash);
  return isMatch && !!hash;
}
