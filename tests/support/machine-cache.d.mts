/** The folder of one kind of install in the machine's cache (`LMTAB_CACHE`, else ~/.cache/lmtab). */
export function machineCacheDir(name: string): string;
