import { ActionIcon, Anchor, Badge, Box, Group, Loader, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert, Loading, Page, useFormat } from '../../shared';
import { useGroup, useVisibleGroups } from './api';

/** Groups: the hierarchy the user can see as a tree with member counts, each branch loaded when opened. */
export function GroupsTreePage() {
  const visible = useVisibleGroups();
  if (visible.isPending) return <Page title="Groups"><Loading /></Page>;
  if (visible.isError) return <Page title="Groups"><ErrorAlert error={visible.error} /></Page>;
  const ids = new Set(visible.data.groups.map((g) => g.id));
  const tops = visible.data.groups.filter((g) => g.parentId === null || !ids.has(g.parentId)).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <Page title="Groups">
      {tops.length === 0 && <Text>No groups you can see yet. An administrator creates the church's groups.</Text>}
      <Box component="ul" role="tree" aria-label="Groups" p={0} m={0} style={{ listStyle: 'none' }}>
        {tops.map((g) => <TreeNode key={g.id} id={g.id} name={g.name} depth={0} />)}
      </Box>
      {!visible.data.complete && <Text size="sm" c="dimmed">Only the first {visible.data.groups.length} groups are shown.</Text>}
    </Page>
  );
}

function TreeNode({ id, name, depth }: { id: number; name: string; depth: number }) {
  const f = useFormat();
  const [open, setOpen] = useState(depth === 0);
  const group = useGroup(id);
  const children = group.data?.children ?? [];
  const hasChildren = children.length > 0;
  return (
    <Box component="li" role="treeitem" aria-expanded={hasChildren ? open : undefined} aria-selected={false} style={{ listStyle: 'none' }}>
      <Group gap="xs" py={4} pl={depth * 20} wrap="nowrap">
        {hasChildren ? (
          <ActionIcon variant="subtle" size="sm" onClick={() => setOpen(!open)} aria-label={`${open ? 'Close' : 'Open'} ${name}`}>
            <span aria-hidden>{open ? '▾' : '▸'}</span>
          </ActionIcon>
        ) : <Box w={22} />}
        <Anchor component={Link} to={`/groups/${id}`}>{name}</Anchor>
        {group.data ? (
          <Badge variant="light" color="gray" title="Active members">{f.number(group.data.memberCount)} {group.data.memberCount === 1 ? 'member' : 'members'}</Badge>
        ) : group.isPending ? <Loader size="xs" role="status" aria-label={`Loading ${name}`} /> : null}
        {group.data && <Text size="xs" c="dimmed" visibleFrom="xs">{group.data.category.name}</Text>}
      </Group>
      {open && hasChildren && (
        <Box component="ul" role="group" p={0} m={0}>
          {children.map((c) => <TreeNode key={c.id} id={c.id} name={c.name} depth={depth + 1} />)}
        </Box>
      )}
    </Box>
  );
}
