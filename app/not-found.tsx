import Link from "next/link";

export default function NotFound() {
  return (
    <div className="space-y-2">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="text-sm text-zinc-600">
        Nothing is stored under this address.{" "}
        <Link className="text-blue-700 hover:underline" href="/">
          Back to the runs
        </Link>
        .
      </p>
    </div>
  );
}
