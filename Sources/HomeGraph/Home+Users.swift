import Foundation

extension Home {
    func userIndex(_ id: UUID) throws(HomeGraphError) -> Int {
        guard let index = users.firstIndex(where: { $0.id == id }) else { throw .notFound(.user, id) }
        return index
    }

    /// Throws when `role` is owner and a user other than `id` already owns the home.
    func checkRole(_ role: UserRole, for id: UUID) throws(HomeGraphError) {
        if role == .owner, let owner = users.first(where: { $0.role == .owner && $0.id != id }) {
            throw .ownerExists(owner.id)
        }
    }

    mutating func addUser(
        id: UUID,
        name: String,
        role: UserRole,
        _ check: NameCheck
    ) throws(HomeGraphError) -> [HomeChange] {
        try checkNewID(id)
        let user = User(id: id, name: try check.accepted(name), role: role)
        try checkRole(role, for: id)
        users.append(user)
        return [.userAdded(user)]
    }

    mutating func removeUser(_ id: UUID) throws(HomeGraphError) -> [HomeChange] {
        let index = try userIndex(id)
        users.remove(at: index)
        return [.userRemoved(user: id)]
    }

    mutating func setRole(of id: UUID, to role: UserRole) throws(HomeGraphError) -> [HomeChange] {
        let index = try userIndex(id)
        try checkRole(role, for: id)
        let old = users[index].role
        guard old != role else { return [] }
        users[index].role = role
        return [.userRoleChanged(user: id, old: old, new: role)]
    }
}
