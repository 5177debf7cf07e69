/**
 * Says which transport the page talks to the relay with, and links to the other one (the
 * transport is chosen once per page load, from the address).
 */
export function TransportLabel({ stateless }: { stateless: boolean }) {
  const other = new URL(location.href)
  // The other transport starts on a new chat: a durable conversation's id means nothing to it.
  other.searchParams.delete('c')
  if (stateless) other.searchParams.delete('transport')
  else other.searchParams.set('transport', 'stateless')
  return (
    <p className="transport" data-testid="transport">
      <span className="sr-only">Transport: </span>
      <span className="badge">{stateless ? 'Stateless' : 'Durable conversation'}</span>
      <a href={`${other.pathname}${other.search}`}>
        {stateless ? 'Switch to durable' : 'Switch to stateless'}
      </a>
    </p>
  )
}
