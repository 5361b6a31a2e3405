/**
 * Roots on SDK v2 clients: the directories a server may work in, answered to `roots/list`, and
 * `notifications/roots/list_changed` sent to every attached, connected client whenever the list
 * changes. One `RootList` outlives the clients it is attached to, so a host that builds a new
 * client on reconnect keeps the person's roots.
 */
import type { Client } from '@modelcontextprotocol/client';
import { ElicitError } from '../errors.ts';
import { ELICIT_ROOT_INVALID } from '../kernel/error-codes.ts';

/** One root: a `file:` URI and, optionally, a name to show. */
export interface Root {
  readonly uri: string;
  readonly name?: string;
}

export interface RootLimits {
  /** Roots in the list; default 64. */
  readonly maxRoots: number;
  /** Characters of a root's URI; default 4096. */
  readonly maxUriLength: number;
}

export const DEFAULT_ROOT_LIMITS: RootLimits = Object.freeze({ maxRoots: 64, maxUriLength: 4096 });

/** A root that is not a `file:` URI, or a list over its limits. */
export class RootInvalid extends ElicitError {
  constructor(message: string) {
    super(ELICIT_ROOT_INVALID, message);
  }
}

function checked(roots: readonly Root[], limits: RootLimits): readonly Root[] {
  if (roots.length > limits.maxRoots)
    throw new RootInvalid(
      `${roots.length} roots is over the limit of ${limits.maxRoots} (limits.maxRoots).`,
    );
  const seen = new Set<string>();
  const out: Root[] = [];
  for (const root of roots) {
    if (root.uri.length > limits.maxUriLength)
      throw new RootInvalid(
        `A root's URI is over ${limits.maxUriLength} characters (limits.maxUriLength).`,
      );
    let url: URL;
    try {
      url = new URL(root.uri);
    } catch {
      throw new RootInvalid(`${JSON.stringify(root.uri.slice(0, 200))} is not a URI.`);
    }
    // The spec allows only file: roots.
    if (url.protocol !== 'file:')
      throw new RootInvalid(
        `${JSON.stringify(root.uri.slice(0, 200))} is not a file: URI; roots are directories.`,
      );
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    out.push(
      Object.freeze({ uri: url.href, ...(root.name === undefined ? {} : { name: root.name }) }),
    );
  }
  return Object.freeze(out);
}

/** The roots a host offers, shared by every client it attaches them to. */
export class RootList {
  readonly #limits: RootLimits;
  #roots: readonly Root[];
  // Clients are held weakly: a host drops a closed client and it must not be kept alive here.
  readonly #clients = new Set<WeakRef<Client>>();

  constructor(roots: readonly Root[] = [], limits: Partial<RootLimits> = {}) {
    this.#limits = { ...DEFAULT_ROOT_LIMITS, ...limits };
    this.#roots = checked(roots, this.#limits);
  }

  /** The current roots (normalised URIs, duplicates dropped). */
  get roots(): readonly Root[] {
    return this.#roots;
  }

  /** Declares roots (with `listChanged`) on `client` and answers its `roots/list`. Before connect. */
  attach(client: Client): void {
    client.registerCapabilities({ roots: { listChanged: true } });
    client.setRequestHandler('roots/list', async () => ({ roots: [...this.#roots] }) as never);
    this.#clients.add(new WeakRef(client));
  }

  /**
   * Replaces the roots and tells every attached, connected client's server
   * (`notifications/roots/list_changed`); a server then asks `roots/list` again. Throws
   * RootInvalid (nothing changed) for a root that is not a `file:` URI or a list over the limits.
   */
  async set(roots: readonly Root[]): Promise<void> {
    this.#roots = checked(roots, this.#limits);
    const sends: Promise<void>[] = [];
    for (const ref of this.#clients) {
      const client = ref.deref();
      if (client === undefined) this.#clients.delete(ref);
      else if (client.transport !== undefined) sends.push(client.sendRootsListChanged());
    }
    await Promise.all(sends);
  }

  /** Adds a root (no change when its URI is listed already). */
  add(root: Root): Promise<void> {
    return this.set([...this.#roots, root]);
  }

  /** Removes the root with this URI; true when one was listed. */
  async remove(uri: string): Promise<boolean> {
    const rest = this.#roots.filter((r) => r.uri !== uri);
    if (rest.length === this.#roots.length) return false;
    await this.set(rest);
    return true;
  }
}
